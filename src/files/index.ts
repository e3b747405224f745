// tracer's file layer: folders, existence, moves, removals and JSON reads, and
// the errors every reader and writer of tracer's files reports. Whole-file
// writes are src/files/atomic-write.ts. One module, not one per concern,
// because the hook path loads it and every module there costs start-up
// (BENCHMARKS.md, "File layer").
//
// Moves and removals go through fs-extra (a move that crosses file systems is
// copied then removed, a move never replaces a file already there unless told
// to, a removal retries a busy file). fs-extra is loaded on first use, not at
// import: loading it costs 26 ms (`require`) to 39 ms (`import`) of start-up,
// graceful-fs patching fs included, and the hook and push paths import this
// module. Those paths only make folders, test existence and read JSON, which
// are the node:fs calls fs-extra's `ensureDir`, `pathExists` and `readJson`
// themselves make, so they never load it.
import { accessSync, mkdirSync, readFileSync } from 'node:fs';
import { access, mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type FsExtra from 'fs-extra';
import { ExitCode, TracerError } from '../core/errors.js';

let loaded: typeof FsExtra | undefined;
function fsExtra(): typeof FsExtra {
  loaded ??= createRequire(import.meta.url)('fs-extra') as typeof FsExtra;
  return loaded;
}

/** Creates `dir` and its parents with `mode` (narrowed by the umask); returns the first folder it created, if any. */
export async function ensureDir(dir: string, mode?: number): Promise<string | undefined> {
  return mkdir(dir, { recursive: true, mode });
}

export function ensureDirSync(dir: string, mode?: number): string | undefined {
  return mkdirSync(dir, { recursive: true, mode });
}

/** Whether something is at `path` (file or folder); an unreadable path counts as absent. */
export async function pathExists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

export function pathExistsSync(path: string): boolean {
  try {
    accessSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Removes a file or a whole folder; nothing there is fine. */
export async function remove(path: string): Promise<void> {
  await fsExtra().remove(path);
}

export function removeSync(path: string): void {
  fsExtra().removeSync(path);
}

/** Renames `from` to `to`, across file systems too; fails if `to` exists unless `overwrite`. */
export async function move(from: string, to: string, options: { overwrite?: boolean } = {}): Promise<void> {
  await fsExtra().move(from, to, { overwrite: options.overwrite ?? false });
}

export function moveSync(from: string, to: string, options: { overwrite?: boolean } = {}): void {
  fsExtra().moveSync(from, to, { overwrite: options.overwrite ?? false });
}

/**
 * A JSON file read, with the three outcomes callers treat differently kept
 * apart: no file (start empty), a file that is not JSON (move it aside, or tell
 * the user to fix it: never overwrite it), and parsed JSON whose shape the caller
 * checks. A file that is there but cannot be read is `state_unreadable`, naming it.
 */
export type JsonRead = { state: 'missing' } | { state: 'invalid'; text: string } | { state: 'parsed'; text: string; value: unknown };

export async function readJson(path: string): Promise<JsonRead> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (isMissing(error)) return { state: 'missing' };
    throw unreadable(path, error);
  }
  return parsed(text);
}

export function readJsonSync(path: string): JsonRead {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (isMissing(error)) return { state: 'missing' };
    throw unreadable(path, error);
  }
  return parsed(text);
}

function parsed(text: string): JsonRead {
  try {
    return { state: 'parsed', text, value: JSON.parse(text) };
  } catch {
    return { state: 'invalid', text };
  }
}

/** ENOTDIR: a file where a parent folder should be; nothing is at this path either. */
function isMissing(error: unknown): boolean {
  return errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR';
}

export function errnoCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : undefined;
}

/**
 * What a failed write tells the user: one sentence naming the path, the reason
 * in words and the fix. Every writer of tracer's files reports through it, so a
 * full disk reads the same whichever file hit it.
 */
export function unwritable(path: string, error: unknown): TracerError {
  if (error instanceof TracerError) return error;
  const code = errnoCode(error);
  const why =
    code === 'ENOSPC'
      ? 'the disk is full'
      : code === 'EROFS'
        ? 'the file system is read-only'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : (code ?? (error as Error).message);
  const fix = code === 'ENOSPC' ? 'free some space on that disk' : 'make its folder writable';
  return new TracerError(
    'state_unwritable',
    `Cannot write ${path} (${why}); ${fix} (or set TRACER_HOME to a folder that can take it) and run the command again.`,
    {
      exitCode: ExitCode.localState,
      cause: error,
    },
  );
}

export function unreadable(path: string, error: unknown): TracerError {
  if (error instanceof TracerError) return error;
  return new TracerError(
    'state_unreadable',
    `Cannot read ${path} (${errnoCode(error) ?? (error as Error).message}); check its permissions and run the command again.`,
    {
      exitCode: ExitCode.localState,
      cause: error,
    },
  );
}
