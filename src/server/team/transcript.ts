// One page of a transcript kept as a blob on the service, read from a byte
// offset as the local viewer reads its snapshot file (same cursor, same
// entries through transcript-normalize.ts): a large transcript is never read
// whole, and reading stops as soon as the page is full.
import type { Readable } from 'node:stream';
import { TracerError } from '../../core/errors.js';
import type { TranscriptEntry, TranscriptPage } from '../../viewer/data-source.js';
import { normalizeLine } from '../../viewer/local/transcript-normalize.js';

/** Bytes read per page at most, even when the lines hold few entries (huge tool outputs), as locally. */
const PAGE_BYTES = 1 << 20;

export async function transcriptPage(
  open: (start: number) => Promise<{ size: number; stream: Readable } | undefined>,
  cursor: string | undefined,
  limit: number,
): Promise<TranscriptPage> {
  const from = parseCursor(cursor);
  const blob = await open(from.offset);
  if (!blob) throw new TracerError('transcript_missing', 'The transcript named by this session is no longer on the service.');
  if (from.offset > blob.size) {
    blob.stream.destroy();
    throw new TracerError('bad_cursor', 'This page cursor does not belong to the transcript; reload the session page.');
  }
  const entries: TranscriptEntry[] = [];
  let position = from.offset;
  let line = from.line;
  let skipped = 0;
  let more = false;
  let pending: Buffer = Buffer.alloc(0);
  const take = (bytes: Buffer, terminated: boolean) => {
    const text = bytes.toString('utf8');
    line += 1;
    position += bytes.length + (terminated ? 1 : 0);
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      skipped += 1;
      return;
    }
    entries.push(...normalizeLine(value, line));
  };
  const full = () => entries.length >= limit || position - from.offset >= PAGE_BYTES;
  try {
    reading: for await (const chunk of blob.stream) {
      pending = pending.length ? Buffer.concat([pending, chunk as Buffer]) : (chunk as Buffer);
      let newline: number;
      while ((newline = pending.indexOf(0x0a)) !== -1) {
        if (full()) {
          more = true;
          break reading;
        }
        take(pending.subarray(0, newline), true);
        pending = pending.subarray(newline + 1);
      }
    }
    if (!more && pending.length > 0) {
      if (full()) more = true;
      else take(pending, false);
    }
  } finally {
    blob.stream.destroy();
  }
  return { entries, next: more ? `${position}.${line}` : null, position, size: blob.size, skipped };
}

function parseCursor(cursor: string | undefined): { offset: number; line: number } {
  if (cursor === undefined || cursor === '') return { offset: 0, line: 0 };
  const match = /^(\d{1,15})\.(\d{1,15})$/.exec(cursor);
  if (!match) throw new TracerError('bad_cursor', 'This page cursor does not belong to the transcript; reload the session page.');
  return { offset: Number(match[1]), line: Number(match[2]) };
}
