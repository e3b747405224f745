// What this machine knows was forgotten (issue 31), in the project folder:
// `tombstones.jsonl` holds every tombstone a remote sent (signed by it, never
// any content), `tombstones-state.json` how far they were applied here and,
// per remote, the pull cursor and the ids the remote is known to hold, and
// `forget-pending.json` a forget under way. Both are written before the store
// changes and cleared after, so a process killed half-way is finished by the
// next push, pull or forget (apply.ts): removal is idempotent.
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { WireTombstone } from '../protocol/privacy.js';
import { appendRecords, readRecordsFrom } from '../store/jsonl.js';
import { isPlainObject, readStateFile, writeStateFile } from '../store/state-file.js';

export const TOMBSTONES_FILE = 'tombstones.jsonl';
const STATE_FILE = 'tombstones-state.json';
const PENDING_FILE = 'forget-pending.json';

export interface RemoteTombstoneState {
  url: string;
  cursor?: string;
  /** Ids of the tombstones the remote is known to hold (its digest is checked against them). */
  ids: string[];
}

export interface TombstoneState {
  /** Bytes of tombstones.jsonl already applied to the store. */
  applied: number;
  remotes: Record<string, RemoteTombstoneState>;
}

/** A local forget's selection, kept while it runs (apply.ts selectionJudge). */
export interface ForgetSelection {
  conversationIds?: string[];
  agent?: string;
  before?: string;
  kinds: Array<'content' | 'trace' | 'attribution'>;
}

const stateOptions = {
  empty: (): TombstoneState => ({ applied: 0, remotes: {} }),
  isValid: (value: unknown): value is TombstoneState =>
    isPlainObject(value) && typeof value.applied === 'number' && isPlainObject(value.remotes),
};

export function readTombstoneState(projectDir: string): Promise<TombstoneState> {
  return readStateFile(join(projectDir, STATE_FILE), stateOptions);
}

export function writeTombstoneState(projectDir: string, state: TombstoneState): Promise<unknown> {
  return writeStateFile(join(projectDir, STATE_FILE), state);
}

export function recordTombstones(projectDir: string, stones: readonly WireTombstone[]): void {
  appendRecords(join(projectDir, TOMBSTONES_FILE), stones);
}

/** Tombstones from byte `from` of the file on, and where the file ends now. */
export async function tombstonesFrom(projectDir: string, from: number): Promise<{ stones: WireTombstone[]; end: number }> {
  const path = join(projectDir, TOMBSTONES_FILE);
  const stones: WireTombstone[] = [];
  let end = from;
  const size = await stat(path).then(
    (info) => info.size,
    () => 0,
  );
  if (size < from) from = 0; // replaced by hand: apply everything again (idempotent)
  for await (const line of readRecordsFrom<WireTombstone>(path, { offset: from, line: 0 })) {
    if (line.ok && isPlainObject(line.value) && typeof line.value.family === 'string') stones.push(line.value);
    end = line.end;
  }
  return { stones, end: Math.max(end, from) };
}

export async function readPending(projectDir: string): Promise<ForgetSelection | undefined> {
  const value = await readStateFile<Record<string, unknown>>(join(projectDir, PENDING_FILE), { empty: () => ({}) });
  return Array.isArray(value.kinds) ? (value as unknown as ForgetSelection) : undefined;
}

export function writePending(projectDir: string, selection: ForgetSelection): Promise<unknown> {
  return writeStateFile(join(projectDir, PENDING_FILE), selection);
}

export function clearPending(projectDir: string): Promise<void> {
  return rm(join(projectDir, PENDING_FILE), { force: true });
}
