// One page of a session's transcript for the session page, local or the team
// view's: read through the agent's own transcript format (its adapter's
// reader), from the cursor the last page returned, never more than about a
// megabyte of it or `limit` entries. A transcript whose agent is not recorded
// is matched to a built-in agent by its first records.
import type { TranscriptFormat, TranscriptItem, TranscriptSource } from '../core/transcript.js';
import { recognizeFormat, type FormatContext } from '../transcript/agents.js';
import { decodeCursor, encodeCursor } from '../transcript/cursor.js';
import { readWindow } from '../transcript/read.js';
import type { TranscriptEntry, TranscriptPage } from './data-source.js';

/** Bytes read per page at most, even when the records hold few entries (huge tool outputs). */
export const PAGE_BYTES = 1 << 20;

export async function transcriptPage(
  source: TranscriptSource,
  format: TranscriptFormat | undefined,
  cursor: string | undefined,
  limit: number,
  context?: FormatContext,
): Promise<TranscriptPage> {
  const from = cursor === undefined || cursor === '' ? undefined : decodeCursor(cursor, source.size);
  const reader = format ?? (await recognizeFormat(source, context));
  if (!reader)
    return {
      entries: [{ kind: 'meta', line: 0, text: 'tracer cannot read this transcript: no enabled agent plugin knows its format.' }],
      next: null,
      position: source.size,
      size: source.size,
      skipped: 0,
    };
  const window = await readWindow(source, reader, { ...(from ? { from } : {}), maxItems: limit, maxBytes: PAGE_BYTES });
  return {
    entries: window.items.map(entryOf),
    next: window.next ? encodeCursor(window.next) : null,
    position: window.position,
    size: source.size,
    skipped: window.skipped,
  };
}

/** An item as the session page shows it (`user` for the person, as the page has always said). */
export function entryOf(item: TranscriptItem): TranscriptEntry {
  const place = { line: item.record, ...(item.ts ? { ts: item.ts } : {}) };
  const truncated = 'truncated' in item && item.truncated ? { truncated: true } : {};
  switch (item.kind) {
    case 'message':
      return {
        kind: 'message',
        ...place,
        role: item.role === 'person' ? 'user' : item.role,
        text: item.text,
        ...(item.model ? { model: item.model } : {}),
        ...truncated,
      };
    case 'thinking':
      return { kind: 'thinking', ...place, text: item.text, ...truncated };
    case 'tool_call':
      return {
        kind: 'tool_call',
        ...place,
        ...(item.id ? { id: item.id } : {}),
        name: item.name,
        input: item.input,
        ...(item.files.length === 1 ? { file: item.files[0] } : {}),
        ...(item.diff ? { diff: item.diff } : {}),
        ...truncated,
      };
    case 'tool_result':
      return {
        kind: 'tool_result',
        ...place,
        ...(item.id ? { id: item.id } : {}),
        text: item.text,
        error: item.error === true,
        ...truncated,
      };
    case 'meta':
      return { kind: 'meta', ...place, text: item.text };
  }
}
