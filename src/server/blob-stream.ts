import { createHash } from 'node:crypto';
import { ProblemError } from './problem.js';

/**
 * Passes blob bytes through while hashing and counting them; refuses the moment
 * the count passes the cap, so an oversized body is never read further.
 */
export class BlobMeter {
  readonly #hash = createHash('sha256');
  #size = 0;

  constructor(private readonly maxBytes: number) {}

  async *pass(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): AsyncGenerator<Buffer> {
    for await (const chunk of capped(source, this.maxBytes)) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      this.#size += buffer.length;
      this.#hash.update(buffer);
      yield buffer;
    }
  }

  get size(): number {
    return this.#size;
  }

  /** Throws sha_mismatch unless the bytes passed hash to `sha`. Call once, after the source is drained. */
  verify(sha: string): void {
    const actual = this.#hash.digest('hex');
    if (actual !== sha) {
      throw new ProblemError(
        422,
        'sha_mismatch',
        `The bytes hash to ${actual}, not to the X-Content-SHA256 ${sha}; nothing was stored. Recompute the SHA-256 and upload again.`,
      );
    }
  }
}

/**
 * The bytes as they come, refused (blob_too_large) the moment their count passes the cap: before the secret
 * gate, which holds a line until it ends, so an upload of long lines is refused while it is still arriving.
 */
export async function* capped(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, maxBytes: number): AsyncGenerator<Uint8Array> {
  let size = 0;
  for await (const chunk of source) {
    size += chunk.length;
    if (size > maxBytes) throw blobTooLarge(maxBytes);
    yield chunk;
  }
}

export function blobTooLarge(maxBytes: number): ProblemError {
  return new ProblemError(
    413,
    'blob_too_large',
    `The blob is larger than this service's BLOB_MAX_BYTES (${maxBytes} bytes); send it inline if the route allows, or raise the limit.`,
  );
}

/** Regroups a byte stream into fixed-size pieces (the last may be shorter), so equal bytes always split the same way. */
export async function* fixedChunks(source: AsyncIterable<Buffer>, size: number): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let pendingLength = 0;
  for await (const chunk of source) {
    pending.push(chunk);
    pendingLength += chunk.length;
    while (pendingLength >= size) {
      const all = Buffer.concat(pending, pendingLength);
      yield all.subarray(0, size);
      pending = [all.subarray(size)];
      pendingLength = all.length - size;
    }
  }
  if (pendingLength > 0) yield Buffer.concat(pending, pendingLength);
}
