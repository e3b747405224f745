// Removing lines from an append-only JSONL file (forget, issue 31) without
// losing anything else: the kept lines stream into a temp file beside it
// (files/atomic-write.ts: fsynced, renamed over the original, so a kill at any
// point leaves the old file or the new one, never a mix). Lines are read as
// bytes; only those holding one of the `needles` are parsed and judged, so
// forgetting one conversation among 200k traces parses a handful of lines.
// Hooks and pulls may append while this runs: what they append is copied
// too, and if the file grew after the last read the rewrite starts over, so
// an append is never lost to the rename.
import { open, stat } from 'node:fs/promises';
import { writeStreamAtomic } from '../files/atomic-write.js';
import { errnoCode } from '../files/index.js';
import { PUBLIC_FILE_MODE } from './home.js';

export interface LineJudge {
  /** Byte strings one of which a line must hold to be looked at; undefined: look at every line. */
  needles?: readonly string[];
  /** True to remove the line (it parsed as `record`). */
  drop(record: Record<string, unknown>): boolean;
}

export interface RewriteResult {
  removed: number;
  kept: number;
}

const CHUNK = 1 << 20;
const ATTEMPTS = 5;
const NEWLINE = 0x0a;

class GrewMeanwhile extends Error {}

/** Rewrites `path` without the lines `judge` drops; a file without any is left untouched. */
export async function removeLines(path: string, judge: LineJudge): Promise<RewriteResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await rewriteOnce(path, judge);
    } catch (error) {
      if (!(error instanceof GrewMeanwhile) || attempt >= ATTEMPTS) throw error;
    }
  }
}

async function rewriteOnce(path: string, judge: LineJudge): Promise<RewriteResult> {
  const needles = judge.needles?.map((needle) => Buffer.from(needle, 'utf8'));
  // A first pass that only looks: a file with nothing to remove is never rewritten.
  const counted: RewriteResult = { removed: 0, kept: 0 };
  if (!(await exists(path))) return counted;
  for await (const _ of keptBytes(path, needles, judge, counted, () => undefined));
  if (counted.removed === 0) return counted;
  const result: RewriteResult = { removed: 0, kept: 0 };
  let readTo = -1;
  await writeStreamAtomic(
    path,
    keptBytes(path, needles, judge, result, (size) => (readTo = size)),
    {
      mode: PUBLIC_FILE_MODE,
      keepExistingMode: true,
      beforeRename: async () => {
        // Appended after the last read: start over rather than lose it to the rename.
        if ((await stat(path)).size !== readTo) throw new GrewMeanwhile();
      },
    },
  );
  return result;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return false;
    throw error;
  }
}

/** The file's kept bytes, a chunk at a time, read to its end as it is when the reading gets there; `ended` gets that size. */
async function* keptBytes(
  path: string,
  needles: Buffer[] | undefined,
  judge: LineJudge,
  tally: RewriteResult,
  ended: (size: number) => void,
): AsyncGenerator<Buffer> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(CHUNK);
    let pending: Buffer = Buffer.alloc(0);
    let position = 0;
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, CHUNK, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      const data = pending.length ? Buffer.concat([pending, buffer.subarray(0, bytesRead)]) : buffer.subarray(0, bytesRead);
      const out: Buffer[] = [];
      let start = 0;
      for (let newline = data.indexOf(NEWLINE); newline !== -1; newline = data.indexOf(NEWLINE, start)) {
        if (keepsLine(data.subarray(start, newline), needles, judge, tally)) out.push(data.subarray(start, newline + 1));
        start = newline + 1;
      }
      // Copied: `buffer` is read into again.
      pending = Buffer.from(data.subarray(start));
      if (out.length) yield Buffer.concat(out);
    }
    // A torn last line (no newline: a writer killed mid-append) is kept as it is.
    if (pending.length > 0 && keepsLine(pending, needles, judge, tally)) yield pending;
    ended(position);
  } finally {
    await file.close();
  }
}

function keepsLine(body: Buffer, needles: Buffer[] | undefined, judge: LineJudge, tally: RewriteResult): boolean {
  if (!needles || needles.some((needle) => body.includes(needle))) {
    let record: unknown;
    try {
      record = JSON.parse(body.toString('utf8'));
    } catch {
      record = undefined; // an unreadable line is never deleted (store/jsonl.ts)
    }
    if (typeof record === 'object' && record !== null && !Array.isArray(record) && judge.drop(record as Record<string, unknown>)) {
      tally.removed += 1;
      return false;
    }
  }
  tally.kept += 1;
  return true;
}
