// Agent transcripts grow to hundreds of MB; what a hook wants from them (the
// model, the last assistant message) is at the end. They are read backwards in
// chunks, never past a cap, so a hook's cost does not grow with the session:
// synchronously for the model a tool-use hook needs, asynchronously for a stop
// hook's closing message. One module, as the hook path pays for each it loads.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { parseWellFormedJson } from './well-formed.js';

const CHUNK_BYTES = 64 * 1024;
const TAIL_CAP_BYTES = 4 * 1024 * 1024;
/** Far enough back for the longest turn. */
export const SUMMARY_CAP_BYTES = 8 * 1024 * 1024;

/** Complete lines, last first, reading backwards in chunks and never more than `capBytes`. */
export async function* linesFromEnd(path: string, capBytes: number): AsyncGenerator<string> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    let position = size;
    let carry = Buffer.alloc(0);
    while (position > 0 && size - position < capBytes) {
      const length = Math.min(CHUNK_BYTES, position);
      position -= length;
      const chunk = Buffer.alloc(length);
      await handle.read(chunk, 0, length, position);
      const buffer = Buffer.concat([chunk, carry]);
      let end = buffer.length;
      while (end > 0) {
        const newline = buffer.lastIndexOf(0x0a, end - 1);
        if (newline === -1) break;
        if (newline + 1 < end) yield buffer.subarray(newline + 1, end).toString('utf8');
        end = newline;
      }
      carry = buffer.subarray(0, end);
    }
    if (position === 0 && carry.length > 0) yield carry.toString('utf8');
  } finally {
    await handle.close();
  }
}

/** The first value `pick` finds, looking at complete lines from the last one back; undefined when none or unreadable. */
export function findFromEnd<T>(path: string, pick: (line: string) => T | undefined, capBytes = TAIL_CAP_BYTES): T | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    let position = size;
    let carry = Buffer.alloc(0);
    while (position > 0 && size - position < capBytes) {
      const length = Math.min(CHUNK_BYTES, position);
      position -= length;
      const chunk = Buffer.allocUnsafe(length);
      readSync(fd, chunk, 0, length, position);
      const buffer = carry.length > 0 ? Buffer.concat([chunk, carry]) : chunk;
      let end = buffer.length;
      for (;;) {
        const newline = end > 0 ? buffer.lastIndexOf(0x0a, end - 1) : -1;
        // Before the first newline of a chunk the line may start in the chunk before: it waits, unless the file starts here.
        if (newline === -1 && position > 0) break;
        const found = pick(buffer.toString('utf8', newline + 1, end));
        if (found !== undefined) return found;
        if (newline === -1) break;
        end = newline;
      }
      carry = buffer.subarray(0, end);
    }
    return undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

export type JsonLine = Record<string, unknown>;

/** The first text `pick` finds in the transcript's lines, last line first; undefined when none or unreadable. */
export async function lastTextInJsonl(path: string, pick: (entry: JsonLine) => string | undefined): Promise<string | undefined> {
  try {
    for await (const line of linesFromEnd(path, SUMMARY_CAP_BYTES)) {
      const entry = parseJsonLine(line);
      const text = entry ? pick(entry) : undefined;
      if (text !== undefined && text.trim() !== '') return text;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** The texts of a message content: a string, or `[{type: "text", text}]` blocks (also `{text}` parts without a type). */
export function textBlocks(content: unknown): string[] {
  if (typeof content === 'string') return content.trim() === '' ? [] : [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((block) =>
    typeof block === 'object' &&
    block !== null &&
    (block.type === 'text' || block.type === undefined) &&
    typeof block.text === 'string' &&
    block.text.trim() !== ''
      ? [block.text]
      : [],
  );
}

export function parseJsonLine(line: string): JsonLine | undefined {
  try {
    const value: unknown = parseWellFormedJson(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonLine) : undefined;
  } catch {
    return undefined;
  }
}
