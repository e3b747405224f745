// Agent transcripts grow to hundreds of MB; what a hook wants from them (the
// model, the last assistant message) is at the end. They are read backwards in
// chunks, never past a cap, so a hook's cost does not grow with the session.
import { open } from 'node:fs/promises';

const CHUNK_BYTES = 64 * 1024;

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
