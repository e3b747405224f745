import { open, stat } from 'node:fs/promises';
import { readRecordsFrom, type LinePosition } from '../../store/jsonl.js';

/**
 * An append-only JSONL file read incrementally: each refresh reads only what
 * was appended since the last one, so an index stays current while the hooks
 * keep writing and never rereads 100 MB. A file that shrank was replaced
 * (reset, pull rewrite): the caller starts over. Refreshes are serialized, so
 * two requests arriving together index the file once.
 */
export class RefreshingFile {
  private position: LinePosition = { offset: 0, line: 0 };
  private running: Promise<void> | undefined;
  private skipped = 0;
  private tornTail = false;

  constructor(
    readonly path: string,
    private readonly handlers: { reset(): void; row(value: unknown, start: number, end: number): void },
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
    if (size < this.position.offset) {
      this.position = { offset: 0, line: 0 };
      this.skipped = 0;
      this.tornTail = false;
      this.handlers.reset();
    }
    if (size === this.position.offset) return;
    let start = this.position.offset;
    for await (const entry of readRecordsFrom(this.path, this.position)) {
      // A torn last line may still be being written: come back to it next time.
      if (!entry.ok && entry.end >= size) {
        this.tornTail = true;
        break;
      }
      if (entry.ok) this.handlers.row(entry.value, start, entry.end);
      else this.skipped += 1;
      start = entry.end;
      this.position = { offset: entry.end, line: entry.line };
      this.tornTail = false;
    }
  }
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
