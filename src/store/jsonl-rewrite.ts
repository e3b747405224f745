// Removing lines from an append-only JSONL file (forget, issue 31) without
// losing anything else: in one pass, the kept lines stream into a temp file beside it
// (files/atomic-write.ts: fsynced, renamed over the original, so a kill at any
// point leaves the old file or the new one, never a mix). Lines are read as
// bytes; only those holding one of the `needles` are parsed and judged, so
// forgetting one conversation among 200k traces parses a handful of lines.
// Hooks and pulls may append while this runs: what they append before the
// rename is read from the replaced file and appended to the new one after it,
// so an append is never lost to the rename.
import { appendFile, open, stat, type FileHandle } from 'node:fs/promises';
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
const NEWLINE = 0x0a;

/** After the rename, the old file is watched until it stays the same this many times, this far apart. */
const CATCH_UP_QUIET_CHECKS = 2;
const CATCH_UP_INTERVAL_MS = 5;

/** Rewrites `path` without the lines `judge` drops; a file without any is left untouched. */
export async function removeLines(path: string, judge: LineJudge): Promise<RewriteResult> {
  const needles = judge.needles?.map((needle) => Buffer.from(needle, 'utf8'));
  const result: RewriteResult = { removed: 0, kept: 0 };
  if (!(await exists(path))) return result;
  let readTo = 0;
  let replaced: FileHandle | undefined;
  try {
    await writeStreamAtomic(
      path,
      keptBytes(path, needles, judge, result, (size) => (readTo = size)),
      {
        mode: PUBLIC_FILE_MODE,
        keepExistingMode: true,
        beforeRename: async () => {
          // Nothing to remove: the copy is thrown away and the file never replaced (one pass either way).
          if (result.removed === 0) throw new NothingRemoved();
          // The file about to be replaced, held open: what is appended to it until the rename is copied over after.
          replaced = await open(path, 'r');
        },
      },
    );
    await catchUp(replaced!, readTo, path, needles, judge, result);
  } catch (error) {
    if (!(error instanceof NothingRemoved)) throw error;
  } finally {
    await replaced?.close();
  }
  return result;
}

class NothingRemoved extends Error {}

/**
 * Appends to the new file what writers appended to the old one after it was
 * read: each append is one write(2) to a path opened just before, so one that
 * opened the old file before the rename lands in it within moments.
 */
async function catchUp(
  old: FileHandle,
  from: number,
  path: string,
  needles: Buffer[] | undefined,
  judge: LineJudge,
  tally: RewriteResult,
): Promise<void> {
  let position = from;
  let pending = Buffer.alloc(0);
  for (let quiet = 0; quiet < CATCH_UP_QUIET_CHECKS;) {
    const { size } = await old.stat();
    if (size <= position) {
      quiet += 1;
      await new Promise((resolve) => setTimeout(resolve, CATCH_UP_INTERVAL_MS));
      continue;
    }
    quiet = 0;
    const bytes = Buffer.allocUnsafe(size - position);
    const { bytesRead } = await old.read(bytes, 0, bytes.length, position);
    position += bytesRead;
    const data = Buffer.concat([pending, bytes.subarray(0, bytesRead)]);
    const kept: Buffer[] = [];
    let start = 0;
    for (let newline = data.indexOf(NEWLINE); newline !== -1; newline = data.indexOf(NEWLINE, start)) {
      if (keepsLine(data.subarray(start, newline), needles, judge, tally)) kept.push(data.subarray(start, newline + 1));
      start = newline + 1;
    }
    pending = Buffer.from(data.subarray(start));
    if (kept.length) await appendFile(path, Buffer.concat(kept));
  }
  // A line still being written when the old file went quiet: kept as it is, on a line of its own.
  if (pending.length > 0 && keepsLine(pending, needles, judge, tally)) await appendFile(path, Buffer.concat([pending, Buffer.from('\n')]));
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

/**
 * The file's kept bytes, a chunk at a time, read to its end as it is when the
 * reading gets there; `ended` gets that size. Two buffers are reused from chunk
 * to chunk (a chunk is written before the next is asked for), so memory stays
 * at a few MiB whatever the file's size.
 */
async function* keptBytes(
  path: string,
  needles: Buffer[] | undefined,
  judge: LineJudge,
  tally: RewriteResult,
  ended: (size: number) => void,
): AsyncGenerator<Buffer> {
  const file = await open(path, 'r');
  try {
    // The partial last line of a read stays at the front of `work`; the next read lands after it.
    let work: Buffer = Buffer.allocUnsafe(2 * CHUNK);
    let out: Buffer = Buffer.allocUnsafe(2 * CHUNK);
    let carried = 0;
    let position = 0;
    for (;;) {
      if (work.length - carried < CHUNK) work = grown(work, carried, carried + CHUNK);
      const { bytesRead } = await file.read(work, carried, CHUNK, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      const filled = carried + bytesRead;
      let kept = 0;
      let start = 0;
      for (let newline = work.indexOf(NEWLINE, carried); newline !== -1 && newline < filled; newline = work.indexOf(NEWLINE, start)) {
        if (keepsLine(work.subarray(start, newline), needles, judge, tally)) {
          const length = newline + 1 - start;
          if (out.length - kept < length) out = grown(out, kept, kept + length);
          work.copy(out, kept, start, newline + 1);
          kept += length;
        }
        start = newline + 1;
      }
      work.copy(work, 0, start, filled);
      carried = filled - start;
      if (kept > 0) yield out.subarray(0, kept);
    }
    // A torn last line (no newline: a writer killed mid-append) is kept as it is.
    if (carried > 0 && keepsLine(work.subarray(0, carried), needles, judge, tally)) yield Buffer.from(work.subarray(0, carried));
    ended(position);
  } finally {
    await file.close();
  }
}

/** A larger buffer holding the first `used` bytes of `buffer`. */
function grown(buffer: Buffer, used: number, needed: number): Buffer {
  const bigger = Buffer.allocUnsafe(Math.max(needed, buffer.length * 2));
  buffer.copy(bigger, 0, 0, used);
  return bigger;
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
