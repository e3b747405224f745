// Transcript snapshots of a project (`conversations/_index.json` → newest sha
// of each conversation → `conversations/<sha[:2]>/<sha>`), read a page at a
// time from a byte offset: an 8 MB (or 800 MB) transcript is never read whole,
// and the first page is on screen after reading a few hundred KB. Only a
// 64-hex sha ever becomes a path, so nothing outside the cache can be named.
import { lstat, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { TracerError } from '../../core/errors.js';
import { readRecords, readRecordsFrom } from '../../store/jsonl.js';
import type { TranscriptEntry, TranscriptPage } from '../data-source.js';
import { isObject, str } from './refreshing-file.js';
import { normalizeLine } from './transcript-normalize.js';

const SHA256 = /^[0-9a-f]{64}$/;
/** Bytes read per page at most, even when the lines hold few entries (huge tool outputs). */
const PAGE_BYTES = 1 << 20;
const CHUNK_BYTES = 256 * 1024;

export class TranscriptStore {
  private index: { mtimeMs: number; map: Map<string, string> } | undefined;

  constructor(private readonly projectDir: string) {}

  /** The newest snapshot of a conversation: the index, else the latest row of conversations.jsonl. */
  async locate(conversationId: string): Promise<{ path: string; size: number } | undefined> {
    const sha = (await this.fromIndex(conversationId)) ?? (await this.fromRows(conversationId));
    if (sha === undefined || !SHA256.test(sha)) return undefined;
    const path = join(this.projectDir, 'conversations', sha.slice(0, 2), sha);
    // lstat: a snapshot is a plain file the hook wrote; a link planted in its place is not followed.
    const info = await lstat(path).catch(() => undefined);
    return info?.isFile() ? { path, size: info.size } : undefined;
  }

  /** Whether the index names a snapshot: cheap enough for every row of a list. */
  async hasSnapshot(conversationId: string): Promise<boolean> {
    return (await this.fromIndex(conversationId)) !== undefined;
  }

  async page(conversationId: string, cursor: string | undefined, limit: number): Promise<TranscriptPage> {
    const found = await this.locate(conversationId);
    if (!found) throw new TracerError('transcript_missing', `No transcript snapshot of ${conversationId} is in this store.`);
    const from = parseCursor(cursor, found.size);
    const entries: TranscriptEntry[] = [];
    let position = from.offset;
    let line = from.line;
    let skipped = 0;
    let more = false;
    for await (const entry of readRecordsFrom(found.path, from, { chunkSize: CHUNK_BYTES })) {
      if (entries.length >= limit || position - from.offset >= PAGE_BYTES) {
        more = true;
        break;
      }
      if (entry.ok) entries.push(...normalizeLine(entry.value, entry.line));
      else skipped += 1;
      position = entry.end;
      line = entry.line;
    }
    return { entries, next: more ? `${position}.${line}` : null, position, size: found.size, skipped };
  }

  private async fromIndex(conversationId: string): Promise<string | undefined> {
    const path = join(this.projectDir, 'conversations', '_index.json');
    const info = await stat(path).catch(() => undefined);
    if (!info) return undefined;
    if (this.index?.mtimeMs !== info.mtimeMs) {
      let map = new Map<string, string>();
      try {
        const parsed: unknown = JSON.parse(await readFile(path, 'utf8'));
        if (isObject(parsed)) map = new Map(Object.entries(parsed).flatMap(([id, sha]) => (typeof sha === 'string' ? [[id, sha]] : [])));
      } catch {
        // A damaged index: the rows still say where the bytes are.
      }
      this.index = { mtimeMs: info.mtimeMs, map };
    }
    return this.index.map.get(conversationId);
  }

  private async fromRows(conversationId: string): Promise<string | undefined> {
    let latest: { ts: string; sha: string } | undefined;
    const needle = JSON.stringify(conversationId);
    for await (const row of readRecords(join(this.projectDir, 'conversations.jsonl'), { mayMatch: (text) => text.includes(needle) })) {
      if (!isObject(row) || row.conversation_id !== conversationId) continue;
      const sha = str(row.content_sha256);
      const ts = str(row.ts) ?? '';
      if (sha !== undefined && (!latest || ts >= latest.ts)) latest = { ts, sha };
    }
    return latest?.sha;
  }
}

function parseCursor(cursor: string | undefined, size: number): { offset: number; line: number } {
  if (cursor === undefined || cursor === '') return { offset: 0, line: 0 };
  const match = /^(\d{1,15})\.(\d{1,15})$/.exec(cursor);
  const offset = match ? Number(match[1]) : NaN;
  if (!match || offset > size)
    throw new TracerError('bad_cursor', 'This page cursor does not belong to the transcript; reload the session page.');
  return { offset, line: Number(match[2]) };
}
