import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ExitCode, TracerError } from '../core/errors.js';
import { PRIVATE_DIR_MODE } from '../store/home.js';
import { unwritable } from '../store/state-file.js';
import { removeAbandonedTemporaries, temporaryPath } from '../store/temp-files.js';
/**
 * Content-addressed blob files: written through a temp file in the same folder,
 * hashed while written, and renamed into place only when the SHA-256 matches, so
 * the cache never holds bytes under the wrong name. A local write failure (disk
 * full, read-only home) is a state_unwritable error, never mistaken for a network
 * failure by the download that feeds it; errors of the source pass through as
 * they are, so the HTTP client still retries a connection cut mid-body. A pull
 * killed mid-download leaves its temp file behind; the next pull fetches the
 * same sha again (its row was never stored) and removes it then.
 */
export async function writeVerifiedBlob(source, sha256, destination) {
  await locally(destination, () => mkdir(dirname(destination), { recursive: true, mode: PRIVATE_DIR_MODE }));
  await removeAbandonedTemporaries(destination);
  const temporary = temporaryPath(destination);
  const hash = createHash('sha256');
  let size = 0;
  const file = await locally(temporary, () => open(temporary, 'w', 0o644));
  try {
    for await (const chunk of source) {
      hash.update(chunk);
      size += chunk.length;
      await locally(temporary, () => writeWhole(file, chunk));
    }
    await locally(temporary, () => file.sync());
    await file.close();
    const actual = hash.digest('hex');
    if (actual !== sha256) {
      throw new TracerError(
        'sha_mismatch',
        `Received bytes hash to ${actual}, not ${sha256}; nothing was stored. Pull again; if it persists the server copy is damaged.`,
        {
          exitCode: ExitCode.validation,
        },
      );
    }
    await locally(destination, () => rename(temporary, destination));
    return size;
  } catch (error) {
    await file.close().catch(() => undefined);
    await rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  }
}
/**
 * write(2) may take fewer bytes than asked (a disk filling up does that before it
 * fails with ENOSPC), and FileHandle.write reports it without failing: the rest
 * is written until it is all down or the system says why not.
 */
async function writeWhole(file, chunk) {
  for (let offset = 0; offset < chunk.length;) {
    const { bytesWritten } = await file.write(chunk, offset, chunk.length - offset);
    if (bytesWritten === 0) throw Object.assign(new Error('no bytes written'), { code: 'ENOSPC' });
    offset += bytesWritten;
  }
}
async function locally(path, operation) {
  try {
    return await operation();
  } catch (error) {
    throw unwritable(path, error);
  }
}
/** SHA-256 and size of a file, streamed (a transcript is never read whole). */
/** Bytes per read of a cached transcript: 1 MiB, not the stream default of 64 KiB (16x fewer trips through the thread pool). */
export const BLOB_READ_CHUNK = 1 << 20;
export async function hashFile(path) {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: BLOB_READ_CHUNK })) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { sha256: hash.digest('hex'), size };
}
/** `<dir>/<sha[:2]>/<sha>`: the cache layout of spec §2.2. */
export function blobCachePath(cacheDir, sha256) {
  return `${cacheDir}/${sha256.slice(0, 2)}/${sha256}`;
}
