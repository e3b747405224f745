// Rewriting an append-only JSONL file in place, for the rare commands that must:
// `tracer forget` removes records (issue 31), `tracer redact --store` replaces
// them (issue 29). One pass: the lines stream into a temp file beside it
// (files/atomic-write.ts: fsynced, renamed over the original, so a kill at any
// point leaves the old file or the new one, never a mix). Lines are read as
// bytes; only those holding one of the `needles` are parsed and judged, so
// forgetting one conversation among 200k traces parses a handful of lines. A
// line that does not parse (a torn last line) is kept byte for byte.
// Hooks and pulls may append while this runs: what they append before the
// rename is read from the replaced file and appended to the new one after it,
// so an append is never lost to the rename.
import { appendFile, open, stat, type FileHandle } from 'node:fs/promises';
import { writeStreamAtomic } from '../files/atomic-write.js';
import { errnoCode } from '../files/index.js';
import { PUBLIC_FILE_MODE } from './home.js';

/** What becomes of a record: `undefined` keeps its line as it is, `null` removes it, a record replaces it. */
export type RecordFate = Record<string, unknown> | null | undefined;

export interface LineChange {
  /** Byte strings one of which a line must hold to be looked at; undefined: look at every line. */
  needles?: readonly string[];
  change(record: Record<string, unknown>): RecordFate | Promise<RecordFate>;
}

export interface RewriteResult {
  removed: number;
  replaced: number;
  kept: number;
}

const CHUNK = 1 << 20;
const NEWLINE = 0x0a;

/** After the rename, the old file is watched until it stays the same this many times, this far apart. */
const CATCH_UP_QUIET_CHECKS = 2;
const CATCH_UP_INTERVAL_MS = 5;

/** Rewrites `path` with each record's fate; a file where nothing changes is left untouched. */
export async function rewriteJsonl(path: string, change: LineChange): Promise<RewriteResult> {
  const judge = { needles: change.needles?.map((needle) => Buffer.from(needle, 'utf8')), change: change.change };
  const result: RewriteResult = { removed: 0, replaced: 0, kept: 0 };
  if (!(await exists(path))) return result;
  let readTo = 0;
  let replaced: FileHandle | undefined;
  try {
    await writeStreamAtomic(
      path,
      rewrittenBytes(path, judge, result, (size) => (readTo = size)),
      {
        mode: PUBLIC_FILE_MODE,
        keepExistingMode: true,
        beforeRename: async () => {
          // Nothing changed: the copy is thrown away and the file never replaced (one pass either way).
          if (result.removed === 0 && result.replaced === 0) throw new NothingChanged();
          // The file about to be replaced, held open: what is appended to it until the rename is copied over after.
          replaced = await open(path, 'r');
        },
      },
    );
    await catchUp(replaced!, readTo, path, judge, result);
  } catch (error) {
    if (!(error instanceof NothingChanged)) throw error;
  } finally {
    await replaced?.close();
  }
  return result;
}

interface Judge {
  needles: Buffer[] | undefined;
  change: LineChange['change'];
}

class NothingChanged extends Error {}

/**
 * Appends to the new file what writers appended to the old one after it was
 * read: each append is one write(2) to a path opened just before, so one that
 * opened the old file before the rename lands in it within moments.
 */
async function catchUp(old: FileHandle, from: number, path: string, judge: Judge, tally: RewriteResult): Promise<void> {
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
      const line = await lineAfter(data.subarray(start, newline), judge, tally);
      if (line) kept.push(line === KEEP ? data.subarray(start, newline + 1) : line);
      start = newline + 1;
    }
    pending = Buffer.from(data.subarray(start));
    if (kept.length) await appendFile(path, Buffer.concat(kept));
  }
  // A line still being written when the old file went quiet: kept as it is, on a line of its own.
  if (pending.length > 0) await appendFile(path, Buffer.concat([pending, Buffer.from('\n')]));
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
 * The file's new bytes, a chunk at a time, read to its end as it is when the
 * reading gets there; `ended` gets that size. Two buffers are reused from chunk
 * to chunk (a chunk is written before the next is asked for), so memory stays
 * at a few MiB whatever the file's size.
 */
async function* rewrittenBytes(path: string, judge: Judge, tally: RewriteResult, ended: (size: number) => void): AsyncGenerator<Buffer> {
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
        const line = await lineAfter(work.subarray(start, newline), judge, tally);
        if (line) {
          const length = line === KEEP ? newline + 1 - start : line.length;
          if (out.length - kept < length) out = grown(out, kept, kept + length);
          if (line === KEEP) work.copy(out, kept, start, newline + 1);
          else line.copy(out, kept);
          kept += length;
        }
        start = newline + 1;
      }
      work.copy(work, 0, start, filled);
      carried = filled - start;
      if (kept > 0) yield out.subarray(0, kept);
    }
    // A torn last line (no newline: a writer killed mid-append) is kept as it is: it does not parse.
    if (carried > 0) yield Buffer.from(work.subarray(0, carried));
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

const KEEP = Symbol('keep');

/** A line (without its newline) after its record's fate: KEEP as it is, a new line (with its newline), or none. */
async function lineAfter(body: Buffer, judge: Judge, tally: RewriteResult): Promise<typeof KEEP | Buffer | undefined> {
  if (judge.needles && !judge.needles.some((needle) => body.includes(needle))) {
    tally.kept += 1;
    return KEEP;
  }
  let record: unknown;
  try {
    record = JSON.parse(body.toString('utf8'));
  } catch {
    record = undefined; // an unreadable line is never changed (store/jsonl.ts)
  }
  const fate =
    typeof record === 'object' && record !== null && !Array.isArray(record)
      ? await judge.change(record as Record<string, unknown>)
      : undefined;
  if (fate === null) {
    tally.removed += 1;
    return undefined;
  }
  if (fate === undefined) {
    tally.kept += 1;
    return KEEP;
  }
  tally.replaced += 1;
  return Buffer.from(`${JSON.stringify(fate)}\n`, 'utf8');
}
