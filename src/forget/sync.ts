// Bringing this machine and a remote to agree on what was forgotten (issue 31),
// before and after every push and pull: the remote's new tombstones are
// recorded, then applied here (the rows and bytes they name leave this store);
// when the remote's count and digest of its tombstones disagree with the ids it
// is known to hold (a service restored from a backup taken before a forget),
// everything is read again and the tombstones it lacks are handed back to it.
import type { RegisteredFamily } from '../kernel/families.js';
import type { PrivacyChannel, WireTombstone } from '../protocol/privacy.js';
import { applySelection, applyTombstones, emptyLocalRemoval, type LocalRemoval } from './apply.js';
import { clearPending, readPending, readTombstoneState, recordTombstones, tombstonesFrom, writeTombstoneState } from './journal.js';

const PAGE = 1000;
/** Where a line of tombstones.jsonl says which remote sent it (never sent back: the signature does not cover it). */
const FROM = '_remote';

export interface TombstoneSync {
  /** Removed here because the remote forgot them. */
  removal: LocalRemoval;
  /** Tombstones handed back to a remote that had lost them. */
  retold: number;
}

export async function syncTombstones(input: {
  families: readonly RegisteredFamily[];
  projectDir: string;
  remote: { name: string; url: string };
  channel: PrivacyChannel;
}): Promise<TombstoneSync> {
  const { projectDir } = input;
  await finishPendingForget(input.families, projectDir);
  const state = await readTombstoneState(projectDir);
  const known = state.remotes[input.remote.name];
  const remote = known && known.url === input.remote.url ? known : { url: input.remote.url, ids: [] as string[] };
  const held = new Set(remote.ids);
  let fresh: WireTombstone[] = [];
  let read = await readAll(input.channel, remote.cursor);
  for (const stone of read.items) if (!held.has(stone.id)) fresh.push(stone);
  let retold = 0;
  if (read.count !== held.size + fresh.length || digestOf([...held, ...fresh.map((stone) => stone.id)]) !== read.digest) {
    // The remote lost tombstones (or never had ours): read all it has, hand back what it lacks.
    read = await readAll(input.channel, undefined);
    const onRemote = new Set(read.items.map((stone) => stone.id));
    const mine = (await tombstonesFrom(projectDir, 0)).stones.filter(
      (stone) => stone[FROM] === input.remote.url && !onRemote.has(stone.id),
    );
    const unique = [...new Map(mine.map((stone) => [stone.id, wireForm(stone)])).values()];
    for (let start = 0; start < unique.length; start += 500) await input.channel.sendTombstones(unique.slice(start, start + 500));
    retold = unique.length;
    held.clear();
    for (const id of onRemote) held.add(id);
    for (const stone of unique) held.add(stone.id);
    const before = new Set(remote.ids);
    fresh = read.items.filter((stone) => !before.has(stone.id));
  }
  // Recorded before anything is removed: a kill from here on is finished by the next run.
  if (fresh.length > 0)
    recordTombstones(
      projectDir,
      fresh.map((stone) => ({ ...stone, [FROM]: input.remote.url })),
    );
  for (const stone of fresh) held.add(stone.id);
  const applied = state.applied;
  const removal = await applyRecorded(input.families, projectDir, state);
  const unchanged =
    known !== undefined && known.url === input.remote.url && known.cursor === read.next && fresh.length === 0 && retold === 0;
  state.remotes[input.remote.name] = { url: input.remote.url, cursor: read.next, ids: [...held] };
  // Nothing new (the common case): the state file is not rewritten.
  if (!unchanged || state.applied !== applied) await writeTombstoneState(projectDir, state);
  return { removal, retold };
}

/** Applies the tombstones recorded since the last time; the caller saves `state`. */
async function applyRecorded(families: readonly RegisteredFamily[], projectDir: string, state: { applied: number }): Promise<LocalRemoval> {
  const { stones, end } = await tombstonesFrom(projectDir, state.applied);
  const removal = stones.length > 0 ? await applyTombstones(families, projectDir, stones) : emptyLocalRemoval();
  state.applied = end;
  return removal;
}

/** A forget killed half-way on this machine: its selection is applied again, then cleared. */
export async function finishPendingForget(families: readonly RegisteredFamily[], projectDir: string): Promise<void> {
  const pending = await readPending(projectDir);
  if (!pending) return;
  await applySelection(families, projectDir, pending, { dryRun: false });
  await clearPending(projectDir);
}

async function readAll(channel: PrivacyChannel, cursor: string | undefined) {
  const items: WireTombstone[] = [];
  let after = cursor;
  for (;;) {
    const page = await channel.tombstones(after, PAGE);
    items.push(...page.items);
    after = page.next;
    if (!page.hasMore) return { items, next: page.next, count: page.count, digest: page.digest };
  }
}

/** The XOR of the ids' first 128 bits, as the service keeps it per project. */
export function digestOf(ids: Iterable<string>): string {
  let value = 0n;
  for (const id of ids) value ^= BigInt(`0x${id.slice(0, 32)}`);
  return value.toString(16).padStart(32, '0');
}

function wireForm(stone: WireTombstone): WireTombstone {
  const { [FROM]: _from, ...wire } = stone;
  return wire as WireTombstone;
}

/** Every local key some recorded tombstone names, by family (a push never sends them). */
export async function forgottenLocalKeys(projectDir: string): Promise<Map<string, WireTombstone[]>> {
  const byFamily = new Map<string, WireTombstone[]>();
  for (const stone of (await tombstonesFrom(projectDir, 0)).stones) {
    const list = byFamily.get(stone.family) ?? [];
    list.push(stone);
    byFamily.set(stone.family, list);
  }
  return byFamily;
}
