// A transcript's bytes as records, streamed: the lines of a JSONL file, or the
// elements of a JSON document (json-scan.ts). Which of the two is found at the
// start of the file and carried by every cursor, so a page can begin at any
// record. A record over the cap (a tool's 200 MB output on one line) is
// skipped without being held, and so are blank lines; nothing is parsed here,
// so that a scan can look at a record's text before paying for its parse.
import type { TranscriptContainer, TranscriptSource } from '../core/transcript.js';
import { JsonScanner, type ScanState } from './json-scan.js';

/** A record larger than this is skipped (`too_long`): memory stays bounded whatever the transcript holds. */
export const RECORD_MAX_BYTES = 32 * 1024 * 1024;
/** How much of the start is looked at to tell JSON lines from one JSON document. */
const SNIFF_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

export interface RawRecord {
  /** 1-based: the line number in a JSONL file, the element's ordinal in a JSON document. */
  record: number;
  start: number;
  /** Just past the record (its newline included): where the next read starts. */
  end: number;
  text?: string;
  problem?: 'too_long' | 'torn' | 'malformed';
  /** The layout a cursor just past this record resumes in. */
  container: TranscriptContainer;
}

export interface RecordsFrom {
  offset: number;
  record: number;
  /** Unknown only at the start of the file, where it is found. */
  container?: TranscriptContainer;
}

export interface RecordOptions {
  documentMember?: string;
  maxRecordBytes?: number;
}

export async function* readRawRecords(source: TranscriptSource, from: RecordsFrom, options: RecordOptions = {}): AsyncGenerator<RawRecord> {
  if (from.offset >= source.size) return;
  const max = options.maxRecordBytes ?? RECORD_MAX_BYTES;
  const chunks = (await source.open(from.offset))[Symbol.asyncIterator]();
  try {
    let layout: TranscriptContainer | 'document' | undefined = from.container;
    const early: Buffer[] = [];
    if (layout === undefined) {
      const sniffed = await sniff(chunks, options.documentMember);
      layout = sniffed.layout;
      early.push(...sniffed.read);
    }
    const all = prepend(early, chunks);
    if (layout === 'lines') yield* lineRecords(all, from, max);
    else yield* scannedRecords(all, from, layout === 'document' ? 'top' : layout, options.documentMember, max);
  } finally {
    await chunks.return?.();
  }
}

/**
 * The records of bytes already in memory, when they are JSON lines: a plain
 * generator, with no promise per record (a usage scan of 2 GB of small
 * transcripts spends more in awaits than in reading). Undefined for a JSON
 * document, which `readRawRecords` scans.
 */
export function bufferLineRecords(bytes: Buffer, from: RecordsFrom, options: RecordOptions = {}): Generator<RawRecord> | undefined {
  if (from.offset >= bytes.length) return (function* () {})();
  const layout = from.container ?? layoutOf(bytes.subarray(0, SNIFF_BYTES), options.documentMember, bytes.length <= SNIFF_BYTES);
  if (layout !== 'lines') return undefined;
  return bufferLines(bytes, from, options.maxRecordBytes ?? RECORD_MAX_BYTES);
}

function* bufferLines(bytes: Buffer, from: RecordsFrom, max: number): Generator<RawRecord> {
  let record = from.record;
  let start = from.offset;
  while (start < bytes.length) {
    const newline = bytes.indexOf(NEWLINE, start);
    const stop = newline === -1 ? bytes.length : newline;
    const end = newline === -1 ? bytes.length : newline + 1;
    record += 1;
    if (stop - start > max) yield { record, start, end, container: 'lines', problem: 'too_long' };
    else if (stop > start) {
      const text = bytes.toString('utf8', start, stop);
      if (text.trim() !== '') yield { record, start, end, container: 'lines', text };
    }
    start = end;
  }
}

/** The layout `sniff` finds, from the head of the bytes in memory; undefined when that head cannot tell. */
function layoutOf(head: Buffer, member: string | undefined, whole: boolean): 'lines' | 'document' | undefined {
  const text = head.toString('utf8').replace(/^\uFEFF/, '');
  const first = text.search(/\S/);
  if (first === -1) return whole ? 'lines' : undefined;
  if (text[first] === '[') return 'document';
  if (text[first] !== '{' || member === undefined) return 'lines';
  const newline = text.indexOf('\n', first);
  if (newline === -1) return whole ? 'lines' : undefined;
  return text.slice(first, newline).trim() === '{' ? 'document' : 'lines';
}

/** JSON lines, unless the file opens a JSON array, or a JSON document whose first line is a lone `{` (JSON.stringify's indented form). */
async function sniff(chunks: AsyncIterator<Buffer>, member: string | undefined): Promise<{ layout: 'lines' | 'document'; read: Buffer[] }> {
  const read: Buffer[] = [];
  let bytes = 0;
  while (bytes < SNIFF_BYTES) {
    const next = await chunks.next();
    if (next.done) break;
    read.push(next.value);
    bytes += next.value.length;
    const head = Buffer.concat(read);
    const text = head.toString('utf8').replace(/^\uFEFF/, '');
    const first = text.search(/\S/);
    if (first === -1) continue;
    if (text[first] === '[') return { layout: 'document', read };
    if (text[first] !== '{' || member === undefined) return { layout: 'lines', read };
    const newline = text.indexOf('\n', first);
    if (newline === -1) continue;
    return { layout: text.slice(first, newline).trim() === '{' ? 'document' : 'lines', read };
  }
  return { layout: 'lines', read };
}

async function* prepend(first: Buffer[], rest: AsyncIterator<Buffer>): AsyncGenerator<Buffer> {
  yield* first;
  for (;;) {
    const next = await rest.next();
    if (next.done) return;
    yield next.value;
  }
}

async function* lineRecords(chunks: AsyncIterable<Buffer>, from: RecordsFrom, max: number): AsyncGenerator<RawRecord> {
  let parts: Buffer[] = [];
  let held = 0;
  let tooLong = false;
  let start = from.offset;
  let position = from.offset;
  let record = from.record;
  const finish = (end: number): RawRecord | undefined => {
    record += 1;
    const line: RawRecord = { record, start, end, container: 'lines' };
    if (tooLong) line.problem = 'too_long';
    else {
      const text = (parts.length === 1 ? parts[0]! : Buffer.concat(parts, held)).toString('utf8');
      if (text.trim() === '') return undefined;
      line.text = text;
    }
    return line;
  };
  for await (const chunk of chunks) {
    let at = 0;
    let newline = chunk.indexOf(NEWLINE, at);
    while (newline !== -1) {
      take(chunk.subarray(at, newline));
      const line = finish(position + newline + 1);
      if (line) yield line;
      parts = [];
      held = 0;
      tooLong = false;
      start = position + newline + 1;
      at = newline + 1;
      newline = chunk.indexOf(NEWLINE, at);
    }
    take(chunk.subarray(at));
    position += chunk.length;
  }
  if (held > 0 || tooLong) {
    const line = finish(position);
    if (line) yield line;
  }

  function take(bytes: Buffer): void {
    if (bytes.length === 0) return;
    held += bytes.length;
    if (tooLong) return;
    if (held > max) {
      tooLong = true;
      parts = [];
      return;
    }
    parts.push(bytes);
  }
}

async function* scannedRecords(
  chunks: AsyncIterable<Buffer>,
  from: RecordsFrom,
  state: ScanState,
  member: string | undefined,
  max: number,
): AsyncGenerator<RawRecord> {
  const scanner = new JsonScanner(state, from.offset, member, max);
  let record = from.record;
  const placed = (scanned: ReturnType<JsonScanner['push']>[number]): RawRecord => {
    record += 1;
    const out: RawRecord = { record, start: scanned.start, end: scanned.end, container: scanned.after === 'top' ? 'array' : scanned.after };
    if (scanned.text !== undefined) out.text = scanned.text;
    if (scanned.problem) out.problem = scanned.problem;
    return out;
  };
  for await (const chunk of chunks) {
    for (const scanned of scanner.push(chunk)) yield placed(scanned);
    if (scanner.finished) return;
  }
  for (const scanned of scanner.end()) yield placed(scanned);
}
