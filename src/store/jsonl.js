import { closeSync, fstatSync, ftruncateSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import { createReadStream } from 'node:fs';
import { dirname } from 'node:path';
import { errnoCode, unwritable } from './state-file.js';
import { PRIVATE_DIR_MODE, PUBLIC_FILE_MODE } from './home.js';
const NEWLINE = 0x0a;
/** `lines[i]`, where given, is records[i] already serialized as one JSON line. */
export function appendRecords(path, records, lines) {
  if (records.length === 0) return;
  // One join of the lines, not a string per line: pull appends 500 rows of ~1 KB per page.
  const body = `${records.map((record, index) => lines?.[index] ?? serializeRecord(record)).join('\n')}\n`;
  let fd;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: PRIVATE_DIR_MODE });
    // a+ rather than a: the descriptor must also read the last byte.
    fd = openSync(path, 'a+', PUBLIC_FILE_MODE);
  } catch (error) {
    throw unwritable(path, error);
  }
  let buffer;
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
function takeBack(fd, part) {
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
export function appendRecord(path, record) {
  appendRecords(path, [record]);
}
/** One line of JSON: JSON.stringify never emits a raw newline, so a record is always one line. */
export function serializeRecord(record) {
  const line = JSON.stringify(record);
  if (line === undefined) throw new TypeError('a JSONL record must be a JSON value');
  return line;
}
export async function* readRecords(path, options = {}) {
  for await (const entry of readRecordsFrom(path, { offset: 0, line: 0 }, options)) if (entry.ok) yield entry.value;
}
/**
 * Like readRecords, from a position on, telling where each line ends, so that a
 * caller can come back later to just past what it has fully handled. Blank
 * lines are skipped; a line that does not parse comes as `ok: false` (and
 * through `onCorrupt`).
 */
export async function* readRecordsFrom(path, from, options = {}) {
  for await (const lines of readLineBatches(path, options.chunkSize, from)) {
    for (const line of lines) {
      const end = line.offset + line.length + (line.terminated ? 1 : 0);
      if (isBlank(line.text)) continue;
      if (options.mayMatch && !options.mayMatch(line.text)) continue;
      let value;
      try {
        value = JSON.parse(line.text);
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
function isBlank(text) {
  const first = text.charCodeAt(0);
  return text.length === 0 || ((first <= 0x20 || first >= 0x7f) && text.trim() === '');
}
/** Up to this many bytes before a position identify it: an append-only file keeps them, a replaced file hardly ever does. */
const TAIL_BYTES = 64;
/** The bytes just before `offset` (base64), or undefined when the file is shorter than that. */
export function tailBefore(path, offset) {
  let fd;
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
/** The lines of each chunk read, as one array: one await per megabyte rather than per line. */
async function* readLineBatches(path, chunkSize = 1 << 20, from = { offset: 0, line: 0 }) {
  const stream = createReadStream(path, { highWaterMark: chunkSize, start: from.offset });
  let pending = [];
  let pendingBytes = 0;
  let number = from.line;
  let offset = from.offset;
  try {
    for await (const chunk of stream) {
      const lines = [];
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
function endsWithNewline(fd) {
  const { size } = fstatSync(fd);
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] === NEWLINE;
}
