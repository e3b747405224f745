// The one way tracer writes a file whole: state files, the blob cache,
// transcript snapshots, agent settings, rules, git hooks, the project anchor and
// the service's blobs. The bytes go to `<destination>.tmp-<pid>-<random>` beside
// the destination, every byte is written (write(2) may take fewer than asked, and
// a filling disk does that before it fails), the file is fsynced, renamed over the
// destination, and the folder is fsynced so the rename itself survives a power
// loss. A crash leaves the old content or the new, never a mix; a failure removes
// the temp file; a writer killed mid-write leaves its temp file, which the next
// writer of that destination removes once that pid no longer runs.
//
// Built on node:fs, not fs-extra, because the hook path (every agent tool use)
// writes through it and importing fs-extra costs 26-39 ms of start-up there
// (BENCHMARKS.md, "File layer"). Calls go through the `fs` object at call time
// so tests can watch the opens, syncs and renames.
//
// Local failures become `state_unwritable` naming the destination; errors of a
// streamed source and of the `beforeRename` check pass through as they are (a
// download cut mid-body stays a network failure the client retries).
import { randomBytes } from 'node:crypto';
import fs, { type BigIntStats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { errnoCode, unwritable } from './index.js';

export interface AtomicWriteOptions {
  /** The new file's exact mode, whatever the umask. Default 0o644. */
  mode?: number;
  /** Fail with EEXIST instead of replacing a file already there (link(2) instead of rename(2)). */
  exclusive?: boolean;
  /** A file already there keeps its own mode (a user's settings file); `mode` is then for a new file only. */
  keepExistingMode?: boolean;
}

export interface StreamedWriteOptions extends AtomicWriteOptions {
  /** Sees each chunk as it is written: hash or count it here, in the same pass. */
  onChunk?: (chunk: Uint8Array) => void;
  /**
   * Runs once every byte is down and synced, before the rename: throwing stores
   * nothing (a hash that does not match). When the name depends on the content
   * (a content-addressed cache), return the path to rename to; it must be on the
   * same file system as `destination`, whose folder holds the temp file.
   */
  beforeRename?: () => void | string | Promise<void | string>;
}

export interface Written {
  /** Where the bytes now are: `destination` (where it points, for a symlink), or what `beforeRename` returned. */
  path: string;
  size: number;
  /** The new file's stats, taken before the rename, so they describe this content whoever writes next. */
  stats: BigIntStats;
}

const DEFAULT_MODE = 0o644;

export async function writeFileAtomic(destination: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<Written> {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  return writeThroughTemporary(destination, options, async (file) => {
    await local(destination, () => writeWhole(file, bytes));
    return bytes.length;
  });
}

/**
 * The same, for bytes that arrive as a stream (downloads, uploads, copies):
 * never held whole. The source is read once the temp file is open; a file
 * stream made before the call could fail before anyone listens, so open it in a
 * generator.
 */
export async function writeStreamAtomic(
  destination: string,
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  options: StreamedWriteOptions = {},
): Promise<Written> {
  return writeThroughTemporary(destination, options, async (file) => {
    let size = 0;
    for await (const chunk of source) {
      options.onChunk?.(chunk);
      size += chunk.length;
      await local(destination, () => writeWhole(file, chunk));
    }
    return size;
  });
}

async function writeThroughTemporary(
  destination: string,
  options: StreamedWriteOptions,
  fill: (file: FileHandle) => Promise<number>,
): Promise<Written> {
  const real = options.exclusive ? destination : await realPath(destination);
  const mode = options.keepExistingMode ? await existingMode(real, options.mode) : (options.mode ?? DEFAULT_MODE);
  await removeAbandonedTemporaries(real);
  const temporary = temporaryPath(real);
  let file: FileHandle | undefined;
  let placed = false;
  try {
    file = await local(destination, () => fs.promises.open(temporary, 'wx', mode));
    const opened = file;
    // The umask may have narrowed the mode on creation; 0600 files must be exactly 0600.
    await local(destination, () => opened.chmod(mode));
    const size = await fill(opened);
    await local(destination, () => opened.sync());
    const stats = await local(destination, () => opened.stat({ bigint: true }));
    file = undefined;
    await local(destination, () => opened.close());
    const target = (await options.beforeRename?.()) ?? real;
    await place(target, options.exclusive, () => (options.exclusive ? linkFile(temporary, target) : renameFile(temporary, target)));
    placed = !options.exclusive;
    await local(target, () => syncFolders(dirname(temporary), dirname(target)));
    return { path: target, size, stats };
  } finally {
    await file?.close().catch(() => undefined);
    if (!placed) await fs.promises.rm(temporary, { force: true }).catch(() => undefined);
  }
}

/** For the few writes that run before anything async can (the project anchor): whole bytes only. */
export function writeFileAtomicSync(destination: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Written {
  const real = options.exclusive ? destination : realPathSync(destination);
  const mode = options.keepExistingMode ? existingModeSync(real, options.mode) : (options.mode ?? DEFAULT_MODE);
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  removeAbandonedTemporariesSync(real);
  const temporary = temporaryPath(real);
  let fd: number | undefined;
  let placed = false;
  try {
    fd = localSync(destination, () => fs.openSync(temporary, 'wx', mode));
    const opened = fd;
    localSync(destination, () => {
      fs.fchmodSync(opened, mode);
      writeWholeSync(opened, bytes);
      fs.fsyncSync(opened);
    });
    const stats = localSync(destination, () => fs.fstatSync(opened, { bigint: true }));
    fd = undefined;
    localSync(destination, () => fs.closeSync(opened));
    placeSync(destination, options.exclusive, () => (options.exclusive ? fs.linkSync(temporary, real) : fs.renameSync(temporary, real)));
    placed = !options.exclusive;
    localSync(destination, () => syncFolderSync(dirname(real)));
    return { path: real, size: bytes.length, stats };
  } finally {
    if (fd !== undefined) closeQuietly(fd);
    if (!placed) removeQuietly(temporary);
  }
}

/**
 * A symlinked destination (a settings file kept in a dotfiles repository) is
 * written where it points, and stays a symlink; a missing or dangling one is
 * written as named.
 */
async function realPath(path: string): Promise<string> {
  return fs.promises.realpath(path).catch(() => path);
}

function realPathSync(path: string): string {
  try {
    return fs.realpathSync(path);
  } catch {
    return path;
  }
}

async function existingMode(path: string, fallback = DEFAULT_MODE): Promise<number> {
  return fs.promises.stat(path).then(
    (stats) => stats.mode & 0o7777,
    () => fallback,
  );
}

function existingModeSync(path: string, fallback = DEFAULT_MODE): number {
  try {
    return fs.statSync(path).mode & 0o7777;
  } catch {
    return fallback;
  }
}

/**
 * write(2) may take fewer bytes than asked (a disk filling up does that before it
 * fails with ENOSPC), and FileHandle.write reports it without failing: the rest
 * is written until it is all down or the system says why not.
 */
async function writeWhole(file: FileHandle, bytes: Uint8Array): Promise<void> {
  for (let offset = 0; offset < bytes.length;) {
    const { bytesWritten } = await file.write(bytes, offset, bytes.length - offset);
    if (bytesWritten === 0) throw noBytesWritten();
    offset += bytesWritten;
  }
}

function writeWholeSync(fd: number, bytes: Uint8Array): void {
  for (let offset = 0; offset < bytes.length;) {
    const bytesWritten = fs.writeSync(fd, bytes, offset, bytes.length - offset);
    if (bytesWritten === 0) throw noBytesWritten();
    offset += bytesWritten;
  }
}

/** An exclusive write that finds the destination taken fails with the plain EEXIST error: the caller reads what is there. */
async function place(target: string, exclusive: boolean | undefined, move: () => Promise<void>): Promise<void> {
  try {
    await move();
  } catch (error) {
    throw exclusive && errnoCode(error) === 'EEXIST' ? error : unwritable(target, error);
  }
}

function placeSync(target: string, exclusive: boolean | undefined, move: () => void): void {
  try {
    move();
  } catch (error) {
    throw exclusive && errnoCode(error) === 'EEXIST' ? error : unwritable(target, error);
  }
}

function noBytesWritten(): Error {
  return Object.assign(new Error('no bytes written'), { code: 'ENOSPC' });
}

function renameFile(from: string, to: string): Promise<void> {
  return new Promise((resolve, reject) => fs.rename(from, to, (error) => (error ? reject(error) : resolve())));
}

function linkFile(from: string, to: string): Promise<void> {
  return new Promise((resolve, reject) => fs.link(from, to, (error) => (error ? reject(error) : resolve())));
}

/** The folders whose entries changed: the destination's, and the temp file's when the rename crossed folders. */
async function syncFolders(...dirs: string[]): Promise<void> {
  for (const dir of new Set(dirs)) {
    let folder: FileHandle | undefined;
    try {
      folder = await fs.promises.open(dir, 'r');
      await folder.sync();
    } catch (error) {
      if (!folderSyncUnsupported(error)) throw error;
    } finally {
      await folder?.close().catch(() => undefined);
    }
  }
}

function syncFolderSync(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch (error) {
    if (!folderSyncUnsupported(error)) throw error;
  } finally {
    if (fd !== undefined) closeQuietly(fd);
  }
}

/** Some systems (Windows) and file systems cannot open or fsync a folder; the rename is then as durable as they make it. */
function folderSyncUnsupported(error: unknown): boolean {
  const code = errnoCode(error);
  return code === 'EISDIR' || code === 'EINVAL' || code === 'EPERM' || code === 'EACCES' || code === 'ENOTSUP';
}

async function local<T>(path: string, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw unwritable(path, error);
  }
}

function localSync<T>(path: string, operation: () => T): T {
  try {
    return operation();
  } catch (error) {
    throw unwritable(path, error);
  }
}

function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // already closed
  }
}

function removeQuietly(path: string): void {
  try {
    fs.rmSync(path, { force: true });
  } catch {
    // gone already, or the next writer removes it as abandoned
  }
}

/**
 * Temp file names carry the writer's pid, so a later writer of the same
 * destination can tell the leftover of a process that was killed mid-write
 * (removed) from the file of one still writing (kept).
 */
const MARK = '.tmp-';

function temporaryPath(destination: string): string {
  return `${destination}${MARK}${process.pid}-${randomBytes(4).toString('hex')}`;
}

/** Removes `<destination>.tmp-<pid>-*` files whose process no longer runs. Never fails. */
async function removeAbandonedTemporaries(destination: string): Promise<void> {
  let names: string[];
  try {
    names = await fs.promises.readdir(dirname(destination));
  } catch {
    return;
  }
  for (const path of abandoned(destination, names)) await fs.promises.rm(path, { force: true }).catch(() => undefined);
}

/** The same, for the synchronous writes (the project anchor, resolved before anything async runs). */
function removeAbandonedTemporariesSync(destination: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(dirname(destination));
  } catch {
    return;
  }
  for (const path of abandoned(destination, names)) {
    try {
      fs.rmSync(path, { force: true });
    } catch {
      // another writer removed it first, or it cannot be removed: the next write tries again
    }
  }
}

function abandoned(destination: string, names: readonly string[]): string[] {
  const prefix = `${basename(destination)}${MARK}`;
  const found: string[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    if (Number.isInteger(pid) && pid > 0 && processRuns(pid)) continue;
    found.push(join(dirname(destination), name));
  }
  return found;
}

function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, under another user.
    return (error as { code?: string }).code === 'EPERM';
  }
}
