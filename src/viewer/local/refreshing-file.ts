// An append-only JSONL file read incrementally: each refresh reads only what
// was appended since the last one, so an index stays current while the hooks
// keep writing and never rereads 100 MB. A file that shrank was replaced
// (reset, pull rewrite): the caller starts over. Refreshes are serialized, so
// two requests arriving together index the file once.
//
// Lines reach the handler as bytes, not strings: the trace index picks its few
// members out of them without decoding or parsing the whole row (trace-scan.ts).
// Every chunk is an awaited read, so requests keep being answered while a
// large file is indexed.
import { open, stat } from 'node:fs/promises';

export interface LineHandler {
  reset(): void;
  /** The line is `bytes[from, to)`, at file offsets [start, end) newline included. False: unreadable, skipped. */
  line(bytes: Buffer, from: number, to: number, start: number, end: number): boolean;
}

const CHUNK_BYTES = 1 << 20;

export class RefreshingFile {
  private offset = 0;
  private running: Promise<void> | undefined;
  private skipped = 0;
  private tornTail = false;

  constructor(
    readonly path: string,
    private readonly handler: LineHandler,
  ) {}

  /** Lines that are not JSON, a torn last line included: skipped, never fatal. */
  get unreadable(): number {
    return this.skipped + (this.tornTail ? 1 : 0);
  }

  refresh(): Promise<void> {
    this.running ??= this.readAppended().finally(() => (this.running = undefined));
    return this.running;
  }

  private async readAppended(): Promise<void> {
    const size = await stat(this.path).then(
      (info) => info.size,
      () => 0,
    );
    if (size < this.offset) {
      this.offset = 0;
      this.skipped = 0;
      this.tornTail = false;
      this.handler.reset();
    }
    if (size === this.offset) return;
    const handle = await open(this.path, 'r');
    try {
      let pending = Buffer.alloc(0);
      while (this.offset + pending.length < size) {
        const want = Math.min(CHUNK_BYTES, size - this.offset - pending.length);
        const chunk = Buffer.allocUnsafe(want);
        const { bytesRead } = await handle.read(chunk, 0, want, this.offset + pending.length);
        if (bytesRead === 0) break;
        const data = pending.length > 0 ? Buffer.concat([pending, chunk.subarray(0, bytesRead)]) : chunk.subarray(0, bytesRead);
        let from = 0;
        for (let newline = data.indexOf(0x0a); newline !== -1; newline = data.indexOf(0x0a, from)) {
          this.take(data, from, newline, this.offset + from, this.offset + newline + 1);
          from = newline + 1;
        }
        this.offset += from;
        pending = data.subarray(from);
      }
      // No newline yet: a record still being appended, or a crash's torn line. Taken when it parses, else retried next time.
      this.tornTail = false;
      if (pending.length > 0 && !isBlank(pending, 0, pending.length)) {
        if (parseJson(pending, 0, pending.length) === undefined) this.tornTail = true;
        else {
          this.take(pending, 0, pending.length, this.offset, this.offset + pending.length);
          this.offset += pending.length;
        }
      }
    } finally {
      await handle.close();
    }
  }

  private take(bytes: Buffer, from: number, to: number, start: number, end: number): void {
    if (isBlank(bytes, from, to)) return;
    if (!this.handler.line(bytes, from, to, start, end)) this.skipped += 1;
  }
}

/** A handler for files whose every line is parsed (ledgers, links, summaries: small next to traces). */
export function parsedLines(handlers: { reset(): void; row(value: unknown, start: number, end: number): void }): LineHandler {
  return {
    reset: handlers.reset,
    line(bytes, from, to, start, end) {
      const value = parseJson(bytes, from, to);
      if (value === undefined) return false;
      handlers.row(value, start, end);
      return true;
    },
  };
}

export function parseJson(bytes: Buffer, from: number, to: number): unknown {
  try {
    return JSON.parse(bytes.toString('utf8', from, to)) as unknown;
  } catch {
    return undefined;
  }
}

function isBlank(bytes: Buffer, from: number, to: number): boolean {
  for (let index = from; index < to; index += 1) {
    const byte = bytes[index]!;
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) return false;
  }
  return true;
}

/** The records at the given [start, end) byte spans, in order; unparsable ones are left out. */
export async function readSpans(path: string, spans: ReadonlyArray<readonly [number, number]>): Promise<unknown[]> {
  if (spans.length === 0) return [];
  const handle = await open(path, 'r');
  try {
    const records: unknown[] = [];
    for (const [start, end] of spans) {
      const buffer = Buffer.alloc(end - start);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
      const text = buffer.subarray(0, bytesRead).toString('utf8').trim();
      try {
        records.push(JSON.parse(text));
      } catch {
        // The file changed under us, or the line was never whole: skip it.
      }
    }
    return records;
  } finally {
    await handle.close();
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
