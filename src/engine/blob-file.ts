// Content-addressed blob files: written with the streamed atomic write
// (src/files/atomic-write.ts), hashed while written, and renamed into place only
// when the SHA-256 matches, so the cache never holds bytes under the wrong name.
// A local write failure (disk full, read-only home) is a state_unwritable error,
// never mistaken for a network failure by the download that feeds it; errors of
// the source pass through as they are, so the HTTP client still retries a
// connection cut mid-body. A pull killed mid-download leaves its temp file
// behind; the next pull fetches the same sha again (its row was never stored)
// and removes it then.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { dirname } from 'node:path';
import { ExitCode, TracerError } from '../core/errors.js';
import { writeStreamAtomic } from '../files/atomic-write.js';
import { ensureDir, unwritable } from '../files/index.js';
import { PRIVATE_DIR_MODE } from '../store/home.js';

export async function writeVerifiedBlob(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  sha256: string,
  destination: string,
): Promise<number> {
  try {
    await ensureDir(dirname(destination), PRIVATE_DIR_MODE);
  } catch (error) {
    throw unwritable(destination, error);
  }
  const hash = createHash('sha256');
  const written = await writeStreamAtomic(destination, source, {
    mode: 0o644,
    onChunk: (chunk) => hash.update(chunk),
    beforeRename: () => {
      const actual = hash.digest('hex');
      if (actual !== sha256) throw shaMismatch(actual, sha256);
    },
  });
  return written.size;
}

function shaMismatch(actual: string, expected: string): TracerError {
  return new TracerError(
    'sha_mismatch',
    `Received bytes hash to ${actual}, not ${expected}; nothing was stored. Pull again; if it persists the server copy is damaged.`,
    { exitCode: ExitCode.validation },
  );
}

/** Bytes per read of a cached transcript: 1 MiB, not the stream default of 64 KiB (16x fewer trips through the thread pool). */
export const BLOB_READ_CHUNK = 1 << 20;

/** SHA-256 and size of a file, streamed (a transcript is never read whole). */
export async function hashFile(path: string): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: BLOB_READ_CHUNK }) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { sha256: hash.digest('hex'), size };
}
