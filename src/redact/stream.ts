// Redaction over a byte stream, never holding it whole: the bytes are cut into
// segments of whole lines (about SEGMENT_BYTES each), each redacted on its own.
// A segment with nothing to redact goes out as the very bytes that came in; one
// that changes is UTF-8 decoded and encoded again, which gives back the same
// bytes wherever nothing was replaced. A line that is not UTF-8 but reads as
// text (a stray Latin-1 byte in a tool's output) is scanned byte for byte as
// Latin-1; in a line of binary only its runs of printable ASCII are read.
import { isUtf8 } from 'node:buffer';
import type { Finding, Redactor } from './engine.js';

/**
 * Small enough that a segment's text is an ordinary string in V8's young generation: one of a megabyte is
 * a large object, whose fresh pages made decoding 8 MiB take 30-45 ms instead of 8 (BENCHMARKS.md, workload 12).
 * A segment this long ends after a JSON line, which a detector reads alone.
 */
export const SEGMENT_BYTES = 64 * 1024;
/**
 * Plain text is read with the lines around a hit (a PEM key, a `name:` / `value:` pair), so where no JSON line
 * stands to cut after, a segment gathers this much before it is cut (and a cut falls there once in as many bytes).
 */
export const PLAIN_SEGMENT_BYTES = 1024 * 1024;
/** A line longer than this (a binary blob has no line breaks) is cut: a secret across the cut may be missed. */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

/** Whole lines, about SEGMENT_BYTES at a time (a longer line alone, cut at MAX_LINE_BYTES). */
export async function* lineSegments(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  // Where the next cut is tried: twice as far each time none is found (plain text), so gathering is not quadratic.
  let tryAt = SEGMENT_BYTES;
  for await (const chunk of source) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    pending.push(buffer);
    pendingBytes += buffer.length;
    if (pendingBytes < tryAt) continue;
    const all = Buffer.concat(pending, pendingBytes);
    const cut = cutAt(all);
    if (cut !== -1) tryAt = SEGMENT_BYTES;
    else if (all.length < PLAIN_SEGMENT_BYTES) tryAt = Math.min(2 * tryAt, PLAIN_SEGMENT_BYTES);
    // A line longer than a segment (a blob without line breaks), or a PEM block held back: not joined again at every chunk.
    else tryAt = Math.min(2 * all.length, MAX_LINE_BYTES);
    if (cut !== -1) {
      yield all.subarray(0, cut + 1);
      pending = [all.subarray(cut + 1)];
      pendingBytes = all.length - cut - 1;
    } else if (all.length >= MAX_LINE_BYTES) {
      yield all;
      pending = [];
      pendingBytes = 0;
      tryAt = SEGMENT_BYTES;
    } else {
      pending = [all];
    }
  }
  if (pendingBytes === 0) return;
  // The last line may be cut short (an agent still writing it): alone, so whatever ends in a newline is whole lines.
  const all = Buffer.concat(pending, pendingBytes);
  const cut = all.lastIndexOf(0x0a);
  if (cut !== -1 && cut < all.length - 1) {
    yield all.subarray(0, cut + 1);
    yield all.subarray(cut + 1);
  } else yield all;
}

/**
 * Where whole lines may be cut off (after the newline at the index returned; -1: nowhere yet): after the last
 * whole line that is JSON (one object or array: the engine reads it alone, and reads plain text around a hit
 * no further than a JSON line); without one, once PLAIN_SEGMENT_BYTES have gathered, after the last newline,
 * unless a PEM block opened shortly before it is still open, whose lines a detector must see together.
 */
function cutAt(bytes: Buffer): number {
  const cut = bytes.lastIndexOf(0x0a);
  if (cut === -1) return -1;
  for (let end = cut; end > 0;) {
    const start = bytes.lastIndexOf(0x0a, end - 1) + 1;
    if (isJsonLine(bytes, start, end)) return end;
    if (start === 0) break;
    end = start - 1;
  }
  if (bytes.length < PLAIN_SEGMENT_BYTES) return -1;
  const begin = bytes.lastIndexOf(PEM_BEGIN, cut);
  if (begin === -1 || cut - begin > PEM_BYTES) return cut;
  // Closed within the whole lines: they may go. An END on the line still coming counts as not yet.
  const end = bytes.indexOf(PEM_END, begin);
  if (end !== -1 && end < cut) return cut;
  // Up to the line before the block; none there: wait for more.
  return bytes.lastIndexOf(0x0a, begin);
}

/** The line `[start, end)` opens with `{` and closes with `}` (or `[` and `]`), as a transcript's lines do. */
function isJsonLine(bytes: Buffer, start: number, end: number): boolean {
  const last = bytes[end - 1] === 0x0d ? end - 2 : end - 1;
  if (last <= start) return false;
  const open = bytes[start];
  const close = bytes[last];
  return (open === 0x7b && close === 0x7d) || (open === 0x5b && close === 0x5d);
}

const PEM_BEGIN = Buffer.from('-----BEGIN ');
const PEM_END = Buffer.from('-----END ');
/** A PEM key's body is at most 10,000 characters (secretlint's limit): a block open longer is no key's, and is cut. */
const PEM_BYTES = 16 * 1024;

/**
 * A segment as redaction reads it: runs of lines that are text and runs that
 * are binary. Text is UTF-8 if it is valid UTF-8; a line that is not but reads
 * as text is Latin-1, one character a byte, so a secret beside a broken byte is
 * still found and every other byte goes out as it came. Binary is read too (the
 * viewers show a transcript's bytes as text, whatever they are, and a token
 * between broken bytes is as readable there), but only its runs of printable
 * ASCII (at least MIN_RUN long), each byte outside them read as a space. Read
 * whole as Latin-1, random bytes made up a finding every 16 to 32 MiB (a short
 * name like `pw:` or `-u`, then Latin-1 letters for a value).
 */
export interface SegmentPart {
  bytes: Buffer;
  /** The text detectors read (binary: see printableRuns). */
  text: string;
  encoding: 'utf8' | 'latin1' | 'binary';
}

export function partsOf(segment: Buffer): SegmentPart[] {
  if (isUtf8(segment)) return [{ bytes: segment, text: segment.toString('utf8'), encoding: 'utf8' }];
  const parts: SegmentPart[] = [];
  let runStart = 0;
  let runKind: Kind | undefined;
  for (let start = 0; start < segment.length;) {
    const newline = segment.indexOf(0x0a, start);
    const end = newline === -1 ? segment.length : newline + 1;
    const kind = kindOf(segment.subarray(start, end));
    if (runKind !== undefined && kind !== runKind) {
      parts.push(part(segment.subarray(runStart, start), runKind));
      runStart = start;
    }
    runKind = kind;
    start = end;
  }
  if (runKind !== undefined) parts.push(part(segment.subarray(runStart), runKind));
  return parts;
}

type Kind = 'utf8' | 'latin1' | 'binary';

/**
 * Binary is a line with a NUL, or with more than two bytes, and more than one
 * in fifty, that text does not hold: a control character (tab, line breaks,
 * form feed, bell, backspace and the escape of terminal colours do occur in
 * text), or a byte of 0x80-0x9F outside any UTF-8 character (no Latin-1 letter
 * is one). Latin-1 letters and whole UTF-8 characters are text; random bytes
 * hold about one such byte in five.
 */
function kindOf(line: Buffer): Kind {
  if (isUtf8(line)) return 'utf8';
  let strange = 0;
  for (let index = 0; index < line.length;) {
    const byte = line[index]!;
    if (byte === 0) return 'binary';
    const length = byte < 0x80 ? 1 : utf8Length(line, index);
    if (length === 0) {
      if (byte < 0xa0) strange += 1;
      index += 1;
      continue;
    }
    if (length === 1 && ((byte < 0x20 && !TEXT_CONTROLS.has(byte)) || byte === 0x7f)) strange += 1;
    index += length;
  }
  return strange > 2 && strange * 50 > line.length ? 'binary' : 'latin1';
}

const TEXT_CONTROLS = new Set([0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1b]);

/** The length of the UTF-8 character that starts at `index` (a lead byte and its continuation bytes), or 0 if none does. */
function utf8Length(line: Buffer, index: number): number {
  const lead = line[index]!;
  const length = lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
  for (let next = 1; next < length; next += 1) {
    const byte = line[index + next];
    if (byte === undefined || byte < 0x80 || byte > 0xbf) return 0;
  }
  return length;
}

function part(bytes: Buffer, kind: Kind): SegmentPart {
  return { bytes, text: kind === 'binary' ? printableRuns(bytes) : bytes.toString(kind), encoding: kind };
}

/**
 * Printable runs shorter than this are read as spaces too: `Pw=AuT7Be` stands by chance in random bytes
 * about once in a few gigabytes (a two-letter name, then any six characters), and a secret worth the name
 * (`password=hunter2`, any token) is longer.
 */
const MIN_RUN = 12;

/** Binary as detectors read it: a character a byte, all but runs of printable ASCII as `\r` (a space to every rule, and no line break). */
function printableRuns(bytes: Buffer): string {
  const masked = Buffer.from(bytes);
  let run = 0;
  for (let index = 0; index <= masked.length; index += 1) {
    const byte = index < masked.length ? masked[index]! : 0x0a;
    if (byte >= 0x20 && byte <= 0x7e) {
      run += 1;
      continue;
    }
    if (run < MIN_RUN) masked.fill(0x0d, index - run, index);
    if (byte !== 0x0a && index < masked.length) masked[index] = 0x0d;
    run = 0;
  }
  return masked.toString('latin1');
}

/** Binary with each finding's bytes replaced by its placeholder (the verify passes of text are left out: no string is re-encoded). */
function redactedBinary(bytes: Buffer, findings: readonly Finding[], redactor: Redactor): Buffer {
  const parts: Buffer[] = [];
  let position = 0;
  for (const { rule, start, end } of [...findings].sort((a, b) => a.start - b.start)) {
    if (start < position) continue;
    parts.push(bytes.subarray(position, start), Buffer.from(redactor.placeholderOf(rule, bytes.toString('latin1', start, end)), 'latin1'));
    position = end;
  }
  parts.push(bytes.subarray(position));
  return Buffer.concat(parts);
}

/**
 * A Latin-1 line as redacted, ready to encode back one byte a character: a JSON
 * string that held a secret comes back written out again, where an escape such
 * as `\u4e2d` became the character itself, which Latin-1 cannot hold; it goes
 * out as the escape again (only a JSON string can hold one: every other
 * character of the line came from one byte).
 */
function escapedAboveLatin1(text: string): string {
  return text.replace(/[\u0100-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The text runs of a stream (binary ones as detectors read them), with how many lines come before each. */
export async function* textRuns(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
): AsyncGenerator<{ text: string; linesBefore: number }> {
  let lines = 0;
  for await (const segment of lineSegments(source)) {
    for (const { bytes, text } of partsOf(segment)) {
      yield { text, linesBefore: lines };
      lines += countLines(bytes);
    }
  }
}

export interface StreamReport {
  findings: number;
}

/** The stream with its secrets replaced; `report.findings` counts them once the stream is drained. */
export async function* redactStream(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  redactor: Redactor,
  report: StreamReport = { findings: 0 },
): AsyncGenerator<Buffer> {
  for await (const { output } of redactedSegments(source, redactor, report)) yield* output;
}

/** Each segment as it came in and as it goes out: whoever resumes a redaction later needs to know how one maps to the other. */
export async function* redactedSegments(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  redactor: Redactor,
  report: StreamReport = { findings: 0 },
): AsyncGenerator<{ input: Buffer; output: Buffer[] }> {
  for await (const segment of lineSegments(source)) {
    const output: Buffer[] = [];
    for (const { bytes, text, encoding } of partsOf(segment)) {
      if (encoding === 'binary') {
        const findings = await redactor.find(text);
        report.findings += findings.length;
        output.push(findings.length === 0 ? bytes : redactedBinary(bytes, findings, redactor));
        continue;
      }
      const result = await redactor.redact(text);
      if (result.findings.length === 0) {
        output.push(bytes);
        continue;
      }
      report.findings += result.findings.length;
      output.push(encoding === 'latin1' ? Buffer.from(escapedAboveLatin1(result.text), 'latin1') : Buffer.from(result.text, 'utf8'));
    }
    yield { input: segment, output };
  }
}

/** Where a finding of a stream is: its rule and its 1-based line. */
export interface StreamFinding {
  rule: string;
  line: number;
}

/**
 * The stream passed through unchanged while it is scanned: `onFinding` is called
 * (and may throw, to stop the stream) with the first finding of the first text
 * run that has one. Used by the service's gate, which stores the bytes as they
 * come: a throw before the end stores nothing.
 */
export async function* scanningStream(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  redactor: Redactor,
  onFinding: (finding: StreamFinding) => void,
): AsyncGenerator<Uint8Array> {
  const queue: Uint8Array[] = [];
  const chunks = (async function* () {
    for await (const chunk of source) {
      queue.push(chunk);
      yield chunk;
    }
  })();
  for await (const { text, linesBefore } of textRuns(chunks)) {
    const [first] = await redactor.find(text);
    if (first) onFinding({ rule: first.rule, line: linesBefore + lineOf(text, first) });
    yield* queue.splice(0);
  }
  yield* queue.splice(0);
}

function lineOf(text: string, finding: Finding): number {
  let line = 1;
  for (let index = text.indexOf('\n'); index !== -1 && index < finding.start; index = text.indexOf('\n', index + 1)) line += 1;
  return line;
}

function countLines(segment: Buffer): number {
  let count = 0;
  for (let index = segment.indexOf(0x0a); index !== -1; index = segment.indexOf(0x0a, index + 1)) count += 1;
  return count;
}
