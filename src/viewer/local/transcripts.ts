// Transcript snapshots of a project (`conversations/_index.json` → newest sha
// of each conversation → `conversations/<sha[:2]>/<sha>`), read a page at a
// time from a cursor through the agent's transcript format: an 8 MB (or 800
// MB) transcript is never read whole, and the first page is on screen after
// reading a few hundred KB. Only a 64-hex sha ever becomes a path, so nothing
// outside the cache can be named.
import { lstat, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { TracerError } from '../../core/errors.js';
import { readRecords } from '../../store/jsonl.js';
import { transcriptFormat, type FormatContext } from '../../transcript/agents.js';
import { fileSource } from '../../transcript/source.js';
import type { TranscriptPage } from '../data-source.js';
import { transcriptPage } from '../transcript-page.js';
import { isObject, str } from './refreshing-file.js';

const SHA256 = /^[0-9a-f]{64}$/;

export class TranscriptStore {
  private index: { mtimeMs: number; map: Map<string, string> } | undefined;

  /** `context` finds the agents' readers as `tracer hook` finds their adapters (TRACER_HOME's plugin list). */
  constructor(
    private readonly projectDir: string,
    private readonly context?: FormatContext,
  ) {}

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

  /** A page of the conversation's newest snapshot, read as `agent`'s transcript (an agent not recorded: recognised by its first records). */
  async page(conversationId: string, cursor: string | undefined, limit: number, agent?: string): Promise<TranscriptPage> {
    const found = await this.locate(conversationId);
    const source = found && (await fileSource(found.path));
    if (!source) throw new TracerError('transcript_missing', `No transcript snapshot of ${conversationId} is in this store.`);
    const format = agent === undefined ? undefined : await transcriptFormat(agent, this.context);
    return transcriptPage(source, format, cursor, limit, this.context);
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
