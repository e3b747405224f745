// What a tool-use hook needs from a transcript (the model) sits in its last
// lines. Read backwards from the end in chunks, synchronously, and never more
// than a cap: a 65 MB transcript costs what its last lines cost. Kept apart from
// tail-lines.ts (async) so the tool-use path loads no promise-based file API.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

const TAIL_CAP_BYTES = 4 * 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;

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
