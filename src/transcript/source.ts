// Where a transcript's bytes come from: a snapshot file, or any stream opened
// at an offset (a blob of the service). Files are read in chunks, never whole.
import { createReadStream } from 'node:fs';
import { lstat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { TranscriptSource } from '../core/transcript.js';

const CHUNK_BYTES = 256 * 1024;

/** A plain file (lstat: a link planted where a snapshot should be is not followed); undefined when there is none. */
export async function fileSource(path: string): Promise<TranscriptSource | undefined> {
  const info = await lstat(path).catch(() => undefined);
  if (!info?.isFile()) return undefined;
  return {
    size: info.size,
    open: async (start) => createReadStream(path, { start, highWaterMark: CHUNK_BYTES }) as AsyncIterable<Buffer>,
  };
}

/** Bytes held in memory (tests, a payload). */
export function bufferSource(bytes: Buffer | string): TranscriptSource {
  const buffer = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes;
  return {
    size: buffer.length,
    bytes: buffer,
    open: async (start) =>
      (async function* () {
        for (let at = start; at < buffer.length; at += CHUNK_BYTES) yield buffer.subarray(at, Math.min(at + CHUNK_BYTES, buffer.length));
      })(),
  };
}

/** A stream opened at an offset, whose size is known when it opens (a blob of the service). */
export function streamSource(size: number, open: (start: number) => Promise<Readable | undefined>): TranscriptSource {
  return {
    size,
    open: async (start) => {
      const stream = await open(start);
      if (!stream) throw Object.assign(new Error('The transcript is no longer there.'), { code: 'transcript_missing' });
      return stream as AsyncIterable<Buffer>;
    },
  };
}
