import { accessSync, mkdirSync } from 'node:fs';
import { access, mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type FsExtra from 'fs-extra';

/**
 * Folders, existence, moves and removals of tracer's files.
 *
 * Moves and removals go through fs-extra (a move that crosses file systems is
 * copied then removed, a move never replaces a file already there unless told
 * to, a removal retries a busy file). fs-extra is loaded on first use, not at
 * import: loading it costs 26 ms (`require`) to 39 ms (`import`) of start-up,
 * graceful-fs patching fs included, and this module sits on the hook and push
 * paths, whose start-up is measured (BENCHMARKS.md, "File layer"). Those paths
 * only make folders and test existence, which are the node:fs calls fs-extra's
 * `ensureDir` and `pathExists` themselves make, so they never load it.
 */
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
