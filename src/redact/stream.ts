// Redaction over a byte stream, never holding it whole: the bytes are cut into
// segments of whole lines (about SEGMENT_BYTES each), each redacted on its own.
// A segment with nothing to redact goes out as the very bytes that came in; one
// that changes is decoded and encoded again the same way (UTF-8 when it is valid
// UTF-8, else Latin-1, which maps every byte to itself), so a binary blob passes
// untouched where nothing is found and is never mangled where something is.
import { isUtf8 } from 'node:buffer';
import type { Finding, Redactor } from './engine.js';

export const SEGMENT_BYTES = 1024 * 1024;
/** A line longer than this (a binary blob has no line breaks) is cut: a secret across the cut may be missed. */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

/** Whole lines, about SEGMENT_BYTES at a time (a longer line alone, cut at MAX_LINE_BYTES). */
export async function* lineSegments(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const chunk of source) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    pending.push(buffer);
    pendingBytes += buffer.length;
    if (pendingBytes < SEGMENT_BYTES) continue;
    const all = Buffer.concat(pending, pendingBytes);
    const cut = all.lastIndexOf(0x0a);
    if (cut !== -1) {
      yield all.subarray(0, cut + 1);
      pending = [all.subarray(cut + 1)];
      pendingBytes = all.length - cut - 1;
    } else if (all.length >= MAX_LINE_BYTES) {
      yield all;
      pending = [];
      pendingBytes = 0;
    } else {
      pending = [all];
    }
  }
  if (pendingBytes > 0) yield Buffer.concat(pending, pendingBytes);
}

function decode(segment: Buffer): { text: string; encoding: BufferEncoding } {
  const encoding: BufferEncoding = isUtf8(segment) ? 'utf8' : 'latin1';
  return { text: segment.toString(encoding), encoding };
}

/** A segment as the text redaction reads: UTF-8 when it is valid UTF-8, else Latin-1. */
export function decodeSegment(segment: Buffer): string {
  return decode(segment).text;
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
  for await (const segment of lineSegments(source)) {
    const { text, encoding } = decode(segment);
    const result = await redactor.redact(text);
    if (result.findings.length === 0) {
      yield segment;
      continue;
    }
    report.findings += result.findings.length;
    yield Buffer.from(result.text, encoding);
  }
}

/** Where a finding of a stream is: its rule and its 1-based line. */
export interface StreamFinding {
  rule: string;
  line: number;
}

/**
 * The stream passed through unchanged while it is scanned: `onFinding` is called
 * (and may throw, to stop the stream) with the first finding of the first segment
 * that has one. Used by the service's gate, which stores the bytes as they come.
 */
export async function* scanningStream(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  redactor: Redactor,
  onFinding: (finding: StreamFinding) => void,
): AsyncGenerator<Uint8Array> {
  const queue: Uint8Array[] = [];
  let lines = 0;
  const scan = async (segment: Buffer) => {
    const { text } = decode(segment);
    const [first] = await redactor.find(text);
    if (first) onFinding({ rule: first.rule, line: lines + lineOf(text, first) });
    lines += countLines(segment);
  };
  const chunks = (async function* () {
    for await (const chunk of source) {
      queue.push(chunk);
      yield chunk;
    }
  })();
  for await (const segment of lineSegments(chunks)) {
    await scan(segment);
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
