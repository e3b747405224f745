// sync-state.json (spec §2.2): per remote, the content ids known to be on that
// remote (`synced.<manifest key>`) and the pull cursor of each family. It is the
// truth for "pushed"; losing it only forces a re-scan (the service dedups).
import { join } from 'node:path';
import { PROJECT_STATE_FILES } from '../store/home.js';
import type { ScanMark } from '../kernel/types.js';
import { isPlainObject, readStateFile, writeStateFile, type StateFileOptions } from '../store/state-file.js';
import { currentStamp, readSyncStateHead, sameStamp, stampOf, writeSyncStateHead, type HeadRecord, type Stamp } from './sync-state-head.js';

export interface RemoteSyncRecord {
  /**
   * The remote URL this record describes. A record kept under the same name for
   * another URL (after `remote set-url`, or a remove and re-add) says nothing
   * about what the new server holds, so it is not used: trusting it would leave
   * data unpushed for good.
   */
  url?: string;
  synced: Record<string, string[]>;
  cursors: Record<string, string>;
  /**
   * Per family, how far its append-only file is known to be wholly in `synced`:
   * a push reads on from there. Only a shortcut: without it (or when the file no
   * longer matches it) the whole file is read and checked against `synced`.
   */
  scanned?: Record<string, ScanMark>;
}

export interface SyncStateFile {
  remotes: Record<string, RemoteSyncRecord>;
  [key: string]: unknown;
}

const options: StateFileOptions<SyncStateFile> = {
  empty: () => ({ remotes: {} }),
  isValid: (value): value is SyncStateFile =>
    isPlainObject(value) &&
    isPlainObject(value.remotes) &&
    Object.values(value.remotes).every(
      (remote) =>
        isPlainObject(remote) &&
        (remote.synced === undefined ||
          (isPlainObject(remote.synced) &&
            Object.values(remote.synced).every((ids) => Array.isArray(ids) && ids.every((id) => typeof id === 'string')))) &&
        (remote.cursors === undefined ||
          (isPlainObject(remote.cursors) && Object.values(remote.cursors).every((cursor) => typeof cursor === 'string'))),
    ),
};

export const syncStatePath = (projectDir: string) => join(projectDir, PROJECT_STATE_FILES.syncState);
export const readSyncStateFile = (projectDir: string) => readStateFile(syncStatePath(projectDir), options);

/** Every write of sync-state.json goes through here, so its head (sync-state-head.ts) always describes the file it sits beside. */
async function saveSyncStateFile(projectDir: string, file: SyncStateFile): Promise<Stamp> {
  const stamp = stampOf(await writeStateFile(syncStatePath(projectDir), file));
  // A head that cannot be written only costs the next run the full parse: its stamp no longer matches.
  await writeSyncStateHead(projectDir, stamp, file.remotes).catch(() => undefined);
  return stamp;
}

/** The file as read, and its stamp when nobody wrote it while it was read. */
interface Snapshot {
  file: SyncStateFile;
  stamp?: Stamp;
}

async function readSnapshot(projectDir: string): Promise<Snapshot> {
  const before = await currentStamp(syncStatePath(projectDir));
  const file = await readSyncStateFile(projectDir);
  const after = await currentStamp(syncStatePath(projectDir));
  return { file, stamp: sameStamp(before, after) ? after : undefined };
}

/** How often, at most, a long run rewrites the file: a large manifest is not rewritten per batch. */
export const FLUSH_INTERVAL_MS = 2_000;
/**
 * A save rewrites the whole manifest (re-reading and merging it first when
 * another run wrote the file meanwhile), so its cost grows with it (~25-90 ms
 * at 100k ids): between saves a run spends at least this many times the last
 * save's duration, keeping saving under ~10% of a long run.
 */
const FLUSH_COST_FACTOR = 10;

/** One remote's manifest and cursors, in memory, saved atomically at most every FLUSH_INTERVAL_MS. */
export class RemoteSyncState {
  readonly #synced = new Map<string, Set<string>>();
  /** Manifests as read, turned into sets on first use: a push that skips a family never pays for its 100k ids. */
  readonly #unread = new Map<string, string[]>();
  readonly #cursors = new Map<string, string | undefined>();
  readonly #scanned = new Map<string, ScanMark | undefined>();
  /**
   * Set while only the head was read: how many ids each manifest lists. The
   * manifests themselves are read by loadManifests(), once a record needs them.
   */
  #deferred?: Map<string, number>;
  #loading?: Promise<void>;
  /**
   * sync-state.json as this object last read or wrote it. While the file still
   * has that stamp, a save needs neither to re-read it nor to merge: nobody
   * else wrote it, and every id it lists is in memory (~45 ms a save at 100k ids).
   */
  #snapshot?: Snapshot;
  #dirty = false;
  #lastFlush = Date.now();
  #lastFlushCost = 0;
  #flushing?: Promise<void>;

  private constructor(
    readonly projectDir: string,
    readonly remote: string,
    readonly url: string,
    record: Partial<RemoteSyncRecord> | HeadRecord | undefined,
  ) {
    if (record && 'listed' in record) this.#deferred = new Map(Object.entries(record.listed));
    else for (const [key, ids] of Object.entries(record?.synced ?? {})) this.#unread.set(key, ids);
    for (const [family, cursor] of Object.entries(record?.cursors ?? {})) this.#cursors.set(family, cursor);
    // A malformed mark is only a lost shortcut: ignore it rather than refuse the file.
    for (const [family, mark] of Object.entries(isPlainObject(record?.scanned) ? record.scanned : {}))
      if (isScanMark(mark)) this.#scanned.set(family, mark);
  }

  /**
   * The remote's record. From the head alone when it matches the file: a run
   * with nothing new to send (the common no-op push) then never parses the
   * manifests, ~35 ms at 100k ids. Call loadManifests() before has/add/delete/count.
   */
  static async load(projectDir: string, remote: string, url: string): Promise<RemoteSyncState> {
    const head = await readSyncStateHead(projectDir, syncStatePath(projectDir));
    if (head) return new RemoteSyncState(projectDir, remote, url, recordFor(head, remote, url) ?? { listed: {} });
    const snapshot = await readSnapshot(projectDir);
    const state = new RemoteSyncState(projectDir, remote, url, recordFor(snapshot.file, remote, url));
    state.#snapshot = snapshot;
    return state;
  }

  /** Reads the manifests the head stood in for; a no-op once they are in memory. */
  loadManifests(): Promise<void> {
    if (!this.#deferred) return Promise.resolve();
    this.#loading ??= readSnapshot(this.projectDir).then((snapshot) => {
      // Cursors and marks stay as the head gave them: they are what this run has acted on.
      for (const [key, ids] of Object.entries(recordFor(snapshot.file, this.remote, this.url)?.synced ?? {})) this.#unread.set(key, ids);
      this.#deferred = undefined;
      this.#snapshot = snapshot;
    });
    return this.#loading;
  }

  #ids(manifestKey: string): Set<string> | undefined {
    if (this.#deferred) throw new Error('RemoteSyncState: a manifest was used before loadManifests()');
    const unread = this.#unread.get(manifestKey);
    if (unread) {
      this.#unread.delete(manifestKey);
      this.#synced.set(manifestKey, new Set(unread));
    }
    return this.#synced.get(manifestKey);
  }

  has(manifestKey: string, id: string): boolean {
    return this.#ids(manifestKey)?.has(id) ?? false;
  }

  add(manifestKey: string, id: string): void {
    let ids = this.#ids(manifestKey);
    if (!ids) this.#synced.set(manifestKey, (ids = new Set()));
    if (!ids.has(id)) {
      ids.add(id);
      this.#dirty = true;
    }
  }

  delete(manifestKey: string, id: string): void {
    if (this.#ids(manifestKey)?.delete(id)) this.#dirty = true;
  }

  count(manifestKey: string): number {
    return this.#ids(manifestKey)?.size ?? 0;
  }

  /** Whether the manifest lists anything, without building its set. */
  #listsAny(manifestKey: string): boolean {
    if (this.#deferred) return (this.#deferred.get(manifestKey) ?? 0) > 0;
    return (this.#unread.get(manifestKey)?.length ?? 0) > 0 || (this.#synced.get(manifestKey)?.size ?? 0) > 0;
  }

  cursor(family: string): string | undefined {
    return this.#cursors.get(family);
  }

  setCursor(family: string, cursor: string | undefined): void {
    if (this.#cursors.get(family) === cursor) return;
    this.#cursors.set(family, cursor);
    this.#dirty = true;
  }

  /** Where the family's file is known to be wholly synced up to; dropped when its manifest is empty (e.g. after a reset). */
  scanned(family: string, manifestKey: string): ScanMark | undefined {
    return this.#listsAny(manifestKey) ? this.#scanned.get(family) : undefined;
  }

  setScanned(family: string, mark: ScanMark | undefined): void {
    const current = this.#scanned.get(family);
    if (current?.offset === mark?.offset && current?.tail === mark?.tail) return;
    this.#scanned.set(family, mark);
    this.#dirty = true;
  }

  /** Saves when something changed and the interval passed (or `force`). */
  async flush(force = false): Promise<void> {
    if (this.#flushing) {
      // Requests overlap: one save at a time; a forced save waits and then saves what came since.
      if (!force) return;
      await this.#flushing;
    }
    if (!this.#dirty || (!force && Date.now() - this.#lastFlush < Math.max(FLUSH_INTERVAL_MS, this.#lastFlushCost * FLUSH_COST_FACTOR)))
      return;
    const started = Date.now();
    this.#flushing = this.save().finally(() => (this.#flushing = undefined));
    await this.#flushing;
    this.#lastFlushCost = Date.now() - started;
  }

  private async save(): Promise<void> {
    // Cleared first: ids added while this save is under way make the state dirty again.
    this.#dirty = false;
    try {
      await this.write();
    } catch (error) {
      this.#dirty = true;
      throw error;
    }
    this.#lastFlush = Date.now();
  }

  private async write(): Promise<void> {
    const known = this.#snapshot;
    const unchanged =
      known?.stamp !== undefined && !this.#deferred && sameStamp(known.stamp, await currentStamp(syncStatePath(this.projectDir)));
    // Else re-read, so another remote's record, or ids another process added meanwhile, are kept.
    const file = unchanged ? known!.file : await readSyncStateFile(this.projectDir);
    const previous = recordFor(file, this.remote, this.url);
    const synced: Record<string, string[]> = {};
    for (const key of new Set([...Object.keys(previous?.synced ?? {}), ...this.#synced.keys()])) {
      const mine = this.#synced.get(key);
      if (!mine) {
        synced[key] = previous!.synced[key]!; // untouched by this run: kept as the file has it
        continue;
      }
      if (unchanged) {
        synced[key] = [...mine]; // built from what the file lists, so nothing to merge
        continue;
      }
      const ids = new Set(previous?.synced?.[key] ?? []);
      for (const id of mine) ids.add(id);
      synced[key] = [...ids];
    }
    const cursors: Record<string, string> = { ...(previous?.cursors ?? {}) };
    for (const [family, cursor] of this.#cursors) {
      if (cursor === undefined) delete cursors[family];
      else cursors[family] = cursor;
    }
    const scanned: Record<string, ScanMark> = { ...(isPlainObject(previous?.scanned) ? previous.scanned : {}) };
    for (const [family, mark] of this.#scanned) {
      if (mark === undefined) delete scanned[family];
      else scanned[family] = mark;
    }
    file.remotes[this.remote] = { ...previous, url: this.url, synced, cursors, scanned };
    this.#snapshot = undefined; // a failed write leaves the file unknown
    this.#snapshot = { file, stamp: await saveSyncStateFile(this.projectDir, file) };
  }
}

/** The remote's record when it describes this URL; a record from before URLs were kept is taken as it is. */
function recordFor<R extends { url?: string }>(file: { remotes: Record<string, R> }, remote: string, url: string): R | undefined {
  const record = file.remotes[remote];
  return record && (record.url === undefined || record.url === url) ? record : undefined;
}

/** `remote rename`: the record follows the remote, so the next push does not re-send everything. */
export async function renameSyncRecord(projectDir: string, from: string, to: string): Promise<void> {
  const file = await readSyncStateFile(projectDir);
  const record = file.remotes[from];
  if (!record) return;
  delete file.remotes[from];
  file.remotes[to] = record;
  await saveSyncStateFile(projectDir, file);
}

/** `remote remove`: a record for a remote that no longer exists could only mislead a later one of the same name. */
export async function forgetSyncRecord(projectDir: string, remote: string): Promise<void> {
  const file = await readSyncStateFile(projectDir);
  if (!file.remotes[remote]) return;
  delete file.remotes[remote];
  await saveSyncStateFile(projectDir, file);
}

function isScanMark(value: unknown): value is ScanMark {
  if (!isPlainObject(value)) return false;
  const { offset, line, records, tail } = value;
  return [offset, line, records].every((n) => Number.isSafeInteger(n) && (n as number) >= 0) && typeof tail === 'string';
}
