// Append-only JSONL files (traces.jsonl, ledgers.jsonl, ...).
//
// Writing: every call is one write(2) on an O_APPEND descriptor, so appends from
// several processes never interleave. If the file does not end in a newline (a
// torn line left by a crash), the append starts with one, so the new record still
// starts on a fresh line and the torn bytes stay where they are. An append that
// fails part-way (disk full) takes its partial bytes back.
//
// Reading: streamed chunk by chunk; a multi-GB file is never held whole. A line
// that does not parse is reported through `onCorrupt` and skipped, never deleted.
import { closeSync, fstatSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import { createReadStream } from 'node:fs';
import { dirname } from 'node:path';
import { ensureDirSync, errnoCode, unwritable } from '../files/index.js';
import { PRIVATE_DIR_MODE, PUBLIC_FILE_MODE } from './home.js';

export interface CorruptLine {
  path: string;
  /** 1-based line number. */
  line: number;
  /** Byte offset of the line's first byte. */
  offset: number;
  /** True when it is the last line and has no newline: what a crash mid-append leaves. */
  torn: boolean;
  preview: string;
}

export interface ReadOptions {
  onCorrupt?: (corrupt: CorruptLine) => void;
  /** Bytes per read; tests lower it to cross chunk borders. */
  chunkSize?: number;
  /**
   * A cheap test on the raw line before it is parsed: a line it refuses is
   * skipped unparsed (and never reported as corrupt). For readers that want a
   * few rows of a large file, e.g. those that mention a path or an id.
   */
  mayMatch?: (line: string) => boolean;
}

const NEWLINE = 0x0a;

/** `lines[i]`, where given, is records[i] already serialized as one JSON line. */
export function appendRecords(path: string, records: readonly unknown[], lines?: readonly (string | undefined)[]): void {
  if (records.length === 0) return;
  // One join of the lines, not a string per line: pull appends 500 rows of ~1 KB per page.
  const body = `${records.map((record, index) => lines?.[index] ?? serializeRecord(record)).join('\n')}\n`;
  let fd: number;
  try {
    ensureDirSync(dirname(path), PRIVATE_DIR_MODE);
    // a+ rather than a: the descriptor must also read the last byte.
    fd = openSync(path, 'a+', PUBLIC_FILE_MODE);
  } catch (error) {
    throw unwritable(path, error);
  }
  let buffer: Buffer | undefined;
  let written = 0;
  try {
    buffer = Buffer.from(endsWithNewline(fd) ? body : `\n${body}`, 'utf8');
    while (written < buffer.length) written += writeSync(fd, buffer, written, buffer.length - written);
  } catch (error) {
    if (buffer && written > 0) takeBack(fd, buffer.subarray(0, written));
    throw unwritable(path, error);
  } finally {
    closeSync(fd);
  }
}

/**
 * A disk that fills up mid-append takes part of the bytes, then fails: without
 * this the file would end in a torn record. The part is cut off again, but only
 * when it is still the file's tail (nobody appended after it), so another
 * process's record is never touched.
 */
function takeBack(fd: number, part: Buffer): void {
  try {
    const { size } = fstatSync(fd);
    if (size < part.length) return;
    const tail = Buffer.alloc(part.length);
    readSync(fd, tail, 0, part.length, size - part.length);
    if (tail.equals(part)) ftruncateSync(fd, size - part.length);
  } catch {
    // Left as a torn last line, which readers skip and the next append ends.
  }
}

export function appendRecord(path: string, record: unknown): void {
  appendRecords(path, [record]);
}

/** One line of JSON: JSON.stringify never emits a raw newline, so a record is always one line. */
export function serializeRecord(record: unknown): string {
  const line = JSON.stringify(record);
  if (line === undefined) throw new TypeError('a JSONL record must be a JSON value');
  return line;
}

export async function* readRecords<T = unknown>(path: string, options: ReadOptions = {}): AsyncGenerator<T> {
  for await (const entry of readRecordsFrom<T>(path, { offset: 0, line: 0 }, options)) if (entry.ok) yield entry.value;
}

/** Where reading starts: a byte offset at the start of a line, and how many lines lie before it. */
export interface LinePosition {
  offset: number;
  line: number;
}

/** A line read by `readRecordsFrom`: its record when it parsed, and where the line ends. */
export type PositionedLine<T> = ({ ok: true; value: T; text: string } | { ok: false }) & {
  /** Offset just past the line's newline (or its last byte, for a torn last line). */
  end: number;
  /** 1-based line number. */
  line: number;
};

/**
 * Like readRecords, from a position on, telling where each line ends, so that a
 * caller can come back later to just past what it has fully handled. Blank
 * lines are skipped; a line that does not parse comes as `ok: false` (and
 * through `onCorrupt`).
 */
export async function* readRecordsFrom<T = unknown>(
  path: string,
  from: LinePosition,
  options: ReadOptions = {},
): AsyncGenerator<PositionedLine<T>> {
  for await (const lines of readLineBatches(path, options.chunkSize, from)) {
    for (const line of lines) {
      const end = line.offset + line.length + (line.terminated ? 1 : 0);
      if (isBlank(line.text)) continue;
      if (options.mayMatch && !options.mayMatch(line.text)) continue;
      let value: T;
      try {
        value = JSON.parse(line.text) as T;
      } catch {
        options.onCorrupt?.({
          path,
          line: line.number,
          offset: line.offset,
          torn: line.last && !line.terminated,
          preview: line.text.slice(0, 80),
        });
        yield { ok: false, end, line: line.number };
        continue;
      }
      yield { ok: true, value, text: line.text, end, line: line.number };
    }
  }
}

/** Blank or whitespace only (as trim() sees it); a line starting with a printable ASCII character is told apart without copying it. */
function isBlank(text: string): boolean {
  const first = text.charCodeAt(0);
  return text.length === 0 || ((first <= 0x20 || first >= 0x7f) && text.trim() === '');
}

/** Up to this many bytes before a position identify it: an append-only file keeps them, a replaced file hardly ever does. */
const TAIL_BYTES = 64;

/** The bytes just before `offset` (base64), or undefined when the file is shorter than that. */
export function tailBefore(path: string, offset: number): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw error;
  }
  try {
    if (fstatSync(fd).size < offset) return undefined;
    const length = Math.min(TAIL_BYTES, offset);
    const tail = Buffer.alloc(length);
    let read = 0;
    while (read < length) {
      const got = readSync(fd, tail, read, length - read, offset - length + read);
      if (got === 0) return undefined;
      read += got;
    }
    return tail.toString('base64');
  } finally {
    closeSync(fd);
  }
}

interface Line {
  text: string;
  /** Bytes of the line, newline excluded. */
  length: number;
  number: number;
  offset: number;
  terminated: boolean;
  last: boolean;
}

/** The lines of each chunk read, as one array: one await per megabyte rather than per line. */
async function* readLineBatches(path: string, chunkSize = 1 << 20, from: LinePosition = { offset: 0, line: 0 }): AsyncGenerator<Line[]> {
  const stream = createReadStream(path, { highWaterMark: chunkSize, start: from.offset });
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let number = from.line;
  let offset = from.offset;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const lines: Line[] = [];
      let start = 0;
      let newline = chunk.indexOf(NEWLINE, start);
      while (newline !== -1) {
        const piece = chunk.subarray(start, newline);
        const bytes = pendingBytes === 0 ? piece : Buffer.concat([...pending, piece], pendingBytes + piece.length);
        number += 1;
        lines.push({ text: bytes.toString('utf8'), length: bytes.length, number, offset, terminated: true, last: false });
        offset += bytes.length + 1;
        pending = [];
        pendingBytes = 0;
        start = newline + 1;
        newline = chunk.indexOf(NEWLINE, start);
      }
      if (start < chunk.length) {
        pending.push(chunk.subarray(start));
        pendingBytes += chunk.length - start;
      }
      if (lines.length > 0) yield lines;
    }
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return;
    throw error;
  }
  if (pendingBytes > 0) {
    number += 1;
    yield [
      { text: Buffer.concat(pending, pendingBytes).toString('utf8'), length: pendingBytes, number, offset, terminated: false, last: true },
    ];
  }
}

function endsWithNewline(fd: number): boolean {
  const { size } = fstatSync(fd);
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] === NEWLINE;
}
