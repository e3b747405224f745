// Rewriting an append-only JSONL file in place, for the rare command that must
// (`tracer redact --store`): every record may be replaced, every other line (one
// that does not parse, a torn last line) is kept byte for byte. Through the one
// atomic write, so a crash leaves the old file or the new one. Appends made
// while it runs (a hook, a pull) are not lost: the file is read up to the size it
// had, and when it has grown or changed by the time the new one is complete, the
// new one is dropped and the rewrite starts over.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { ExitCode, TracerError } from '../core/errors.js';
import { writeStreamAtomic } from '../files/atomic-write.js';
import { errnoCode } from '../files/index.js';

export type RecordChange = (record: Record<string, unknown>) => Promise<Record<string, unknown> | undefined>;

const ATTEMPTS = 5;

class Changed extends Error {}
class Unchanged extends Error {}

/** Rewrites the file with each record `change` replaces; returns how many it replaced (0: the file is left alone). */
export async function rewriteJsonl(path: string, change: RecordChange): Promise<number> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    let before;
    try {
      before = await stat(path, { bigint: true });
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return 0;
      throw error;
    }
    let replaced = 0;
    const size = Number(before.size);
    async function* rewritten(): AsyncGenerator<Buffer> {
      if (size === 0) return;
      let pending: Buffer = Buffer.alloc(0);
      for await (const chunk of createReadStream(path, { end: size - 1 }) as AsyncIterable<Buffer>) {
        pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
        let start = 0;
        for (let end = pending.indexOf(0x0a); end !== -1; end = pending.indexOf(0x0a, start)) {
          yield await line(pending.subarray(start, end), true);
          start = end + 1;
        }
        pending = pending.subarray(start);
      }
      if (pending.length > 0) yield await line(pending, false);
    }
    async function line(bytes: Buffer, ended: boolean): Promise<Buffer> {
      const whole = ended ? Buffer.concat([bytes, Buffer.from('\n')]) : bytes;
      if (!ended) return whole; // a torn last line stays as it is
      let record: unknown;
      try {
        record = JSON.parse(bytes.toString('utf8'));
      } catch {
        return whole;
      }
      if (typeof record !== 'object' || record === null || Array.isArray(record)) return whole;
      const next = await change(record as Record<string, unknown>);
      if (!next) return whole;
      replaced += 1;
      return Buffer.from(`${JSON.stringify(next)}\n`, 'utf8');
    }
    try {
      await writeStreamAtomic(path, rewritten(), {
        keepExistingMode: true,
        beforeRename: async () => {
          const now = await stat(path, { bigint: true });
          if (now.size !== before.size || now.mtimeNs !== before.mtimeNs || now.ino !== before.ino) throw new Changed();
          if (replaced === 0) throw new Unchanged();
        },
      });
      return replaced;
    } catch (error) {
      if (error instanceof Unchanged) return 0;
      if (!(error instanceof Changed)) throw error;
    }
  }
  throw new TracerError(
    'store_busy',
    `${path} kept changing while it was rewritten (${ATTEMPTS} tries); run the command again when no agent or pull is writing to it.`,
    {
      exitCode: ExitCode.localState,
    },
  );
}
