// Local storage of a blob family laid out as spec §2.2 says for conversations:
// bytes in `<dir>/<sha[:2]>/<sha>`, `<dir>/_index.json` mapping each id to its
// freshest sha, and one row per snapshot (id, sha, size, ts) in `<rows file>`.
// An index entry with no row (bytes placed by hand) is still a record: its size
// comes from the file, its ts from the file's mtime.
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { SHA256_HEX } from '../core/content-id.js';
import type { TracerWarning } from '../core/errors.js';
import type { FamilyDefinition } from '../kernel/families.js';
import type { FamilyStore } from '../kernel/types.js';
import { appendRecords, readRecords } from '../store/jsonl.js';
import { rewriteJsonl } from '../store/jsonl-rewrite.js';
import { errnoCode } from '../files/index.js';
import { isPlainObject, readStateFile, writeStateFile } from '../store/state-file.js';
import { blobCachePath } from '../store/home.js';
import { unreadableLine } from './jsonl-family-store.js';

export interface BlobFamilyLayout {
  /** Folder of the byte cache and its `_index.json`. */
  dir: string;
  /** JSONL file of the snapshot rows. */
  rows: string;
  /** Member that names the thing the snapshots belong to (`conversation_id`). */
  idMember: string;
}

export const INDEX_FILE = '_index.json';

type Index = Record<string, string>;
const indexOptions = {
  empty: (): Index => ({}),
  isValid: (value: unknown): value is Index => isPlainObject(value) && Object.values(value).every((sha) => typeof sha === 'string'),
};

export function blobFamilyStore(projectDir: string, definition: FamilyDefinition, layout: BlobFamilyLayout): FamilyStore {
  const blob = definition.blob;
  if (!blob) throw new Error(`family "${definition.name}" has no blob description`);
  const dir = join(projectDir, layout.dir);
  const rowsPath = join(projectDir, layout.rows);
  const indexPath = join(dir, INDEX_FILE);
  const keyOf = (record: Record<string, unknown>) => {
    const id = record[layout.idMember];
    const sha = record[blob.shaMember];
    return typeof id === 'string' && id !== '' && typeof sha === 'string' && SHA256_HEX.test(sha) ? `${id}:${sha}` : undefined;
  };
  const blobPath = (sha256: string) => blobCachePath(dir, sha256);

  async function* rows(warn: (warning: TracerWarning) => void): AsyncGenerator<Record<string, unknown>> {
    for await (const row of readRecords<unknown>(rowsPath, {
      onCorrupt: (line) => warn(unreadableLine(line.path, line.line, line.torn)),
    })) {
      if (isPlainObject(row)) yield row;
    }
  }

  /** ts of each (id, sha) snapshot, from the rows; the mtime of an index entry without one. */
  async function snapshotTimes(index: Index, warn: (warning: TracerWarning) => void): Promise<Map<string, string>> {
    const times = new Map<string, string>();
    for await (const row of rows(warn)) {
      const key = keyOf(row);
      if (key && typeof row.ts === 'string') times.set(key, row.ts);
    }
    for (const [id, sha] of Object.entries(index)) {
      const key = `${id}:${sha}`;
      if (times.has(key)) continue;
      const mtime = await stat(blobPath(sha)).then(
        (info) => info.mtime.toISOString(),
        () => undefined,
      );
      if (mtime) times.set(key, mtime);
    }
    return times;
  }

  return {
    keyOf,
    blobPath,
    async *records(warn) {
      const seen = new Set<string>();
      for await (const row of rows(warn)) {
        const key = keyOf(row);
        if (key === undefined || seen.has(key)) {
          if (key === undefined) yield row; // the engine reports it as invalid
          continue;
        }
        seen.add(key);
        const { [blob.inlineMember]: _inline, ...pointer } = row;
        yield pointer;
      }
      const index = await readStateFile(indexPath, indexOptions);
      for (const [id, sha] of Object.entries(index)) {
        if (seen.has(`${id}:${sha}`)) continue;
        try {
          const info = await stat(blobPath(sha));
          yield { [layout.idMember]: id, [blob.shaMember]: sha, [blob.sizeMember]: info.size, ts: info.mtime.toISOString() };
        } catch (error) {
          warn({
            code: 'blob_cache_missing',
            message: `${indexPath} names ${sha} for ${id}, but ${blobPath(sha)} is ${errnoCode(error) === 'ENOENT' ? 'missing' : 'unreadable'}; it is skipped.`,
          });
        }
      }
    },
    async append(records) {
      if (records.length === 0) return;
      const pointers = records.map(({ [blob.inlineMember]: _inline, ...pointer }) => pointer);
      appendRecords(rowsPath, pointers);
      const index = await readStateFile(indexPath, indexOptions);
      const times = await snapshotTimes(index, () => undefined);
      if (pointAtFreshest(index, times, pointers)) await writeStateFile(indexPath, index);
    },
    /**
     * Forget: the index first (an id whose snapshot goes points at its freshest
     * remaining one, or goes), then the rows, then the bytes no row or index entry
     * names. A kill in between leaves bytes or rows behind, never an index that
     * names bytes that are gone; the forget's journal (forget/journal.ts) runs it again.
     */
    async remove(judge) {
      const index = await readStateFile(indexPath, indexOptions);
      const dropped = new Set<string>();
      const kept: Record<string, unknown>[] = [];
      for await (const row of rows(() => undefined)) {
        const key = keyOf(row);
        if (key && judge.drop(row)) dropped.add(key);
        else if (key) kept.push(row);
      }
      const keptKeys = new Set(kept.map((row) => keyOf(row)));
      for (const [id, sha] of Object.entries(index)) {
        const key = `${id}:${sha}`;
        if (dropped.has(key) || keptKeys.has(key)) continue;
        // An index entry without a row (bytes placed by hand) is a record too.
        const record = { [layout.idMember]: id, [blob.shaMember]: sha };
        if (judge.drop(record)) dropped.add(key);
      }
      if (dropped.size === 0) return 0;
      let indexChanged = false;
      for (const [id, sha] of Object.entries(index)) {
        if (!dropped.has(`${id}:${sha}`)) continue;
        delete index[id];
        indexChanged = true;
      }
      const times = new Map(kept.map((row) => [keyOf(row)!, String(row.ts)]));
      const survivors: Record<string, unknown>[] = [];
      for (const row of kept) {
        const id = row[layout.idMember] as string;
        if (index[id] === undefined && (await fileExists(blobPath(String(row[blob.shaMember]))))) survivors.push(row);
      }
      if (pointAtFreshest(index, times, survivors) || indexChanged) await writeStateFile(indexPath, index);
      const removedRows = (
        await rewriteJsonl(rowsPath, {
          needles: [...dropped].map((key) => key.slice(key.lastIndexOf(':') + 1)),
          change: (row) => (dropped.has(keyOf(row) ?? '') ? null : undefined),
        })
      ).removed;
      const named = new Set([...kept.map((row) => String(row[blob.shaMember])), ...Object.values(index)]);
      for (const key of dropped) {
        const sha = key.slice(key.lastIndexOf(':') + 1);
        if (!named.has(sha)) await rm(blobPath(sha), { force: true });
      }
      return Math.max(removedRows, dropped.size);
    },
    /**
     * The rows are appended before the index is rewritten: a process killed
     * between the two leaves rows the index does not point at, and a later pull
     * sees them as duplicates and appends nothing. This points every id at its
     * freshest snapshot whose bytes are in the cache again.
     */
    async recover(warn) {
      const index = await readStateFile(indexPath, indexOptions);
      const times = await snapshotTimes(index, warn);
      const freshest = new Map<string, Record<string, unknown>>();
      for await (const row of rows(() => undefined)) {
        const key = keyOf(row);
        if (!key || typeof row.ts !== 'string') continue;
        const id = row[layout.idMember] as string;
        const best = freshest.get(id);
        if (!best || isNewer(row.ts, String(best.ts))) freshest.set(id, row);
      }
      const candidates: Record<string, unknown>[] = [];
      for (const [id, row] of freshest) {
        const current = index[id];
        if (current === row[blob.shaMember]) continue;
        const currentTs = current === undefined ? undefined : times.get(`${id}:${current}`);
        if (currentTs !== undefined && !isNewer(row.ts, currentTs)) continue;
        // Never point the index at bytes that are not there.
        if (
          await stat(blobPath(String(row[blob.shaMember]))).then(
            () => true,
            () => false,
          )
        )
          candidates.push(row);
      }
      if (pointAtFreshest(index, times, candidates)) await writeStateFile(indexPath, index);
    },
    /**
     * Rows first, then the index (an entry without a row is asked about too),
     * then the bytes nothing names any more. Killed in between, a rerun finds
     * the rows already replaced and finishes the rest.
     */
    async rewrite(change) {
      const replaced = new Map<string, string>();
      const note = (before: Record<string, unknown>, after: Record<string, unknown> | undefined) => {
        const from = before[blob.shaMember];
        const to = after?.[blob.shaMember];
        if (typeof from === 'string' && typeof to === 'string' && from !== to) replaced.set(from, to);
        return after;
      };
      let count = (await rewriteJsonl(rowsPath, { change: async (row) => note(row, await change(row)) })).replaced;
      const named = new Set<string>();
      for await (const row of rows(() => undefined)) if (typeof row[blob.shaMember] === 'string') named.add(row[blob.shaMember] as string);
      const index = await readStateFile(indexPath, indexOptions);
      let indexChanged = false;
      for (const [id, sha] of Object.entries(index)) {
        if (!replaced.has(sha) && !named.has(sha)) {
          const info = await stat(blobPath(sha)).catch(() => undefined);
          if (info) {
            const record = { [layout.idMember]: id, [blob.shaMember]: sha, [blob.sizeMember]: info.size, ts: info.mtime.toISOString() };
            if (note(record, await change(record))) count += 1;
          }
        }
        const next = replaced.get(sha);
        if (next) {
          index[id] = next;
          indexChanged = true;
        }
      }
      if (indexChanged) await writeStateFile(indexPath, index);
      for (const sha of Object.values(index)) named.add(sha);
      for (const old of replaced.keys()) if (!named.has(old)) await rm(blobPath(old), { force: true });
      return count;
    },
  };

  /** Moves each id of `pointers` to its snapshot when that is newer than the one indexed; true when the index changed. */
  function pointAtFreshest(index: Index, times: Map<string, string>, pointers: readonly Record<string, unknown>[]): boolean {
    let changed = false;
    for (const record of pointers) {
      const id = record[layout.idMember] as string;
      const sha = record[blob!.shaMember] as string;
      const current = index[id];
      const currentTs = current === undefined ? undefined : times.get(`${id}:${current}`);
      if (current === undefined || currentTs === undefined || isNewer(record.ts, currentTs)) {
        index[id] = sha;
        times.set(`${id}:${sha}`, String(record.ts));
        changed = true;
      }
    }
    return changed;
  }
}

async function fileExists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

function isNewer(candidate: unknown, current: string): boolean {
  const a = typeof candidate === 'string' ? Date.parse(candidate) : NaN;
  const b = Date.parse(current);
  if (Number.isNaN(a)) return false;
  return Number.isNaN(b) || a > b;
}

/** Spec §4.3, §8: transcripts below 256 KiB go inline, larger ones through the blob routes. */
export const INLINE_BELOW_BYTES = 256 * 1024;

/**
 * The conversations family (spec §2.2, §4.3): transcripts in the content-addressed
 * cache `conversations/<sha[:2]>/<sha>`, one row per snapshot in
 * `conversations.jsonl`, `conversations/_index.json` pointing each conversation at
 * its freshest snapshot. A row is identified by (conversation_id, content_sha256).
 * The capture hooks write it whether or not the conversations plugin syncs it.
 */
export const CONVERSATIONS_FAMILY = {
  name: 'conversations',
  idMember: null,
  identity: ['conversation_id', 'content_sha256'],
  required: ['conversation_id', 'content_sha256', 'size', 'ts'],
  storage: ['conversations', 'conversations.jsonl'],
  members: { conversation_id: 'string', content_sha256: 'sha256', size: 'byte-size', ts: 'timestamp', content_base64: 'base64' },
  blob: { shaMember: 'content_sha256', sizeMember: 'size', inlineMember: 'content_base64', inlineBelow: INLINE_BELOW_BYTES },
  text: { blob: true, untyped: true },
} as const satisfies FamilyDefinition;

const CONVERSATIONS_LAYOUT: BlobFamilyLayout = { dir: 'conversations', rows: 'conversations.jsonl', idMember: 'conversation_id' };

/** The one store of a project's transcripts: sync and the capture hooks both go through it. */
export function conversationStore(projectDir: string, definition: FamilyDefinition = CONVERSATIONS_FAMILY): FamilyStore {
  return blobFamilyStore(projectDir, definition, CONVERSATIONS_LAYOUT);
}
