import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { errnoCode, unreadable } from './errors.js';

/**
 * Reading a JSON file, with the three outcomes callers treat differently kept
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
