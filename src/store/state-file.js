import fs from 'node:fs';
import { access, lstat, mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { ExitCode, TracerError } from '../core/errors.js';
import { PRIVATE_DIR_MODE, PUBLIC_FILE_MODE } from './home.js';
import { removeAbandonedTemporaries, temporaryPath } from './temp-files.js';
export async function readStateFile(path, options) {
  let text;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return options.empty();
    throw unreadable(path, error);
  }
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    return moveAsideAndThrow(path, 'is not valid JSON');
  }
  const isValid = options.isValid ?? isPlainObject;
  if (!isValid(value)) return moveAsideAndThrow(path, 'does not have the expected shape');
  return value;
}
/** Returns the written file's stats, taken before it replaced `path`, so they describe this content whoever writes next. */
export async function writeStateFile(path, value, mode = PUBLIC_FILE_MODE) {
  const text = `${JSON.stringify(value, null, 2)}\n`;
  let temporary;
  let stats;
  try {
    await mkdir(dirname(path), { recursive: true, mode: PRIVATE_DIR_MODE });
    // A process killed mid-write leaves its temp file; the next writer of this file removes it.
    await removeAbandonedTemporaries(path);
    temporary = temporaryPath(path);
    const file = await open(temporary, 'wx', mode);
    try {
      // The umask may have narrowed the mode on creation; 0600 files must be exactly 0600.
      await file.chmod(mode);
      await file.writeFile(text, 'utf8');
      await file.sync();
      stats = await file.stat({ bigint: true });
    } finally {
      await file.close();
    }
    await renameFile(temporary, path);
  } catch (error) {
    if (temporary) await rm(temporary, { force: true }).catch(() => undefined);
    throw unwritable(path, error);
  }
  return stats;
}
/** Read, change, write back. The change may return a new value or mutate in place. */
export async function updateStateFile(path, options, change) {
  const current = await readStateFile(path, options);
  const next = (await change(current)) ?? current;
  await writeStateFile(path, next, options.mode);
  return next;
}
/** Through the fs object at call time, so tests can watch the rename that makes a write visible. */
function renameFile(from, to) {
  return new Promise((resolve, reject) => fs.rename(from, to, (error) => (error ? reject(error) : resolve())));
}
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- callers read members of parsed JSON they go on to check
export function isPlainObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
async function moveAsideAndThrow(path, what) {
  let aside;
  try {
    aside = await freeAsideName(path);
    await rename(path, aside);
  } catch (error) {
    throw new TracerError(
      'state_file_corrupt',
      `${path} ${what} and could not be moved aside (${errnoCode(error) ?? 'error'}); fix or remove it by hand, then run the command again.`,
      { exitCode: ExitCode.localState, cause: error },
    );
  }
  throw new TracerError(
    'state_file_corrupt',
    `${basename(path)} ${what}; it was moved to ${aside}. Restore what you need from there, then run the command again (it starts from an empty ${basename(path)}).`,
    { exitCode: ExitCode.localState },
  );
}
/**
 * `<path>.corrupt-<stamp>`, with a counter when that name is taken: a file corrupted
 * twice within one millisecond must not overwrite the copy set aside first.
 */
async function freeAsideName(path) {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  for (let attempt = 0; ; attempt += 1) {
    const aside = `${path}.corrupt-${stamp}${attempt === 0 ? '' : `-${attempt}`}`;
    try {
      await lstat(aside);
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return aside;
      throw error;
    }
  }
}
/** Whether something is at `path` (file or folder); an unreadable path counts as absent. */
export async function pathExists(path) {
  return access(path).then(
    () => true,
    () => false,
  );
}
export function errnoCode(error) {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}
export function unwritable(path, error) {
  if (error instanceof TracerError) return error;
  const code = errnoCode(error);
  const why =
    code === 'ENOSPC'
      ? 'the disk is full'
      : code === 'EROFS'
        ? 'the file system is read-only'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : (code ?? error.message);
  const fix = code === 'ENOSPC' ? 'Free some space on that disk' : 'Make its folder writable';
  return new TracerError(
    'state_unwritable',
    `Cannot write ${path}: ${why}. ${fix} (or set TRACER_HOME to a folder that can take it) and run the command again.`,
    {
      exitCode: ExitCode.localState,
      cause: error,
    },
  );
}
function unreadable(path, error) {
  return new TracerError(
    'state_unreadable',
    `Cannot read ${path} (${errnoCode(error) ?? error.message}); check its permissions and run the command again.`,
    {
      exitCode: ExitCode.localState,
      cause: error,
    },
  );
}
