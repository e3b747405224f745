import type { BigIntStats } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { ExitCode, TracerError } from '../core/errors.js';
import { writeFileAtomic } from '../files/atomic-write.js';
import { ensureDir, errnoCode, move, readJson, unwritable } from '../files/index.js';
import { PRIVATE_DIR_MODE, PUBLIC_FILE_MODE } from './home.js';

// Callers reached these here before src/files/ existed.

/**
 * JSON state files (config.json, projects.json, remotes.json, sync-state.json, ...).
 * Written with the atomic write of src/files/atomic-write.ts, so a crash leaves
 * either the old or the new content, and the temp file of a writer killed
 * mid-write is removed by the next write. A file that does not parse, or has the wrong
 * shape, is never silently overwritten: it is moved aside with a timestamp and the
 * error says where.
 */
export interface StateFileOptions<T> {
  /** Fresh content when the file does not exist yet. */
  empty: () => T;
  /** Shape check; a file that fails it is treated as corrupt. */
  isValid?: (value: unknown) => value is T;
}

export async function readStateFile<T>(path: string, options: StateFileOptions<T>): Promise<T> {
  const read = await readJson(path);
  if (read.state === 'missing') return options.empty();
  if (read.state === 'invalid') return moveAsideAndThrow(path, 'is not valid JSON');
  const isValid = options.isValid ?? isPlainObject;
  if (!isValid(read.value)) return moveAsideAndThrow(path, 'does not have the expected shape');
  return read.value as T;
}

/** Returns the written file's stats, taken before it replaced `path`, so they describe this content whoever writes next. */
export async function writeStateFile(path: string, value: unknown, mode = PUBLIC_FILE_MODE): Promise<BigIntStats> {
  const text = `${JSON.stringify(value, null, 2)}\n`;
  try {
    await ensureDir(dirname(path), PRIVATE_DIR_MODE);
  } catch (error) {
    throw unwritable(path, error);
  }
  return (await writeFileAtomic(path, text, { mode })).stats;
}

/** Read, change, write back. The change may return a new value or mutate in place. */
export async function updateStateFile<T>(
  path: string,
  options: StateFileOptions<T> & { mode?: number },
  change: (value: T) => T | void | Promise<T | void>,
): Promise<T> {
  const current = await readStateFile(path, options);
  const next = (await change(current)) ?? current;
  await writeStateFile(path, next, options.mode);
  return next;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- callers read members of parsed JSON they go on to check
export function isPlainObject(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function moveAsideAndThrow(path: string, what: string): Promise<never> {
  let aside: string;
  try {
    aside = await freeAsideName(path);
    await move(path, aside);
  } catch (error) {
    throw new TracerError(
      'state_file_corrupt',
      `${path} ${what} and could not be moved aside (${errnoCode(error) ?? 'error'}); fix or remove it by hand, then run the command again.`,
      { exitCode: ExitCode.localState, cause: error },
    );
  }
  throw new TracerError(
    'state_file_corrupt',
    `${basename(path)} ${what}; it was moved to ${aside}, so restore what you need from there and run the command again (it starts from an empty ${basename(path)}).`,
    { exitCode: ExitCode.localState },
  );
}

/**
 * `<path>.corrupt-<stamp>`, with a counter when that name is taken: a file corrupted
 * twice within one millisecond must not overwrite the copy set aside first.
 */
async function freeAsideName(path: string): Promise<string> {
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
