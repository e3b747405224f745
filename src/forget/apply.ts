// Taking rows out of this machine's store (issue 31): by the tombstones a
// remote sent, or by a forget's own selection. Every family that says how its
// rows belong to conversations (FamilyPrivacy) goes through its store's
// remove(), which rewrites each file atomically and deletes bytes last.
import type { RegisteredFamily } from '../kernel/families.js';
import type { RecordJudge } from '../kernel/types.js';
import type { WireTombstone } from '../protocol/privacy.js';
import { storeOf } from '../engine/family-store.js';
import type { ForgetSelection } from './journal.js';

export interface LocalRemoval {
  /** Records removed, by family. */
  rows: Record<string, number>;
  /** Conversations some removed record belonged to. */
  conversations: Set<string>;
}

export function emptyLocalRemoval(): LocalRemoval {
  return { rows: {}, conversations: new Set() };
}

/** Removes the records the tombstones name, family by family. */
export async function applyTombstones(
  families: readonly RegisteredFamily[],
  projectDir: string,
  stones: readonly WireTombstone[],
  removal = emptyLocalRemoval(),
): Promise<LocalRemoval> {
  for (const family of families) {
    const mine = stones.filter((stone) => stone.family === family.name);
    if (mine.length === 0) continue;
    const store = storeOf(family, projectDir);
    if (!store.remove) continue;
    const keys = new Set(mine.map((stone) => store.keyOf(stone.identity)).filter((key): key is string => key !== undefined));
    const conversations = new Map(mine.map((stone) => [store.keyOf(stone.identity), stone.conversation_id]));
    // Lines are looked at only when they hold an identity value: a content id, or the sha of a snapshot.
    const needles = [
      ...new Set(
        mine.flatMap((stone) =>
          Object.values(stone.identity).filter((value): value is string => typeof value === 'string' && value.length >= 16),
        ),
      ),
    ];
    const removed = await store.remove({
      needles: needles.length > 0 && needles.length <= 2000 ? needles : undefined,
      drop: (record) => {
        const key = store.keyOf(record);
        if (key === undefined || !keys.has(key)) return false;
        const conversation = conversations.get(key);
        if (conversation) removal.conversations.add(conversation);
        return true;
      },
    });
    if (removed > 0) removal.rows[family.name] = (removal.rows[family.name] ?? 0) + removed;
  }
  await leaveSearchIndex(projectDir, removal);
  return removal;
}

/**
 * Forgotten conversations leave the local search index (issue 32) as soon as
 * their rows are gone: it is a cache of the store, and must not keep what the
 * store no longer holds. Without an index this costs one stat.
 */
async function leaveSearchIndex(projectDir: string, removal: LocalRemoval): Promise<void> {
  if (removal.conversations.size === 0) return;
  const { removeFromIndex } = await import('../search/local-index.js');
  await removeFromIndex(projectDir, removal.conversations);
}

/**
 * Removes (or with `dryRun` only counts) what a forget selects here: records of
 * the selected kinds that belong to the conversations (or the agent's) and,
 * with `before`, whose ts is earlier.
 */
export async function applySelection(
  families: readonly RegisteredFamily[],
  projectDir: string,
  selection: ForgetSelection,
  options: {
    dryRun: boolean;
    /** Only these of the selection's kinds (a first look at the small files). */ kinds?: ForgetSelection['kinds'];
  },
): Promise<LocalRemoval> {
  const removal = emptyLocalRemoval();
  let ids = selection.conversationIds ? new Set(selection.conversationIds) : undefined;
  if (selection.agent !== undefined) {
    const ofAgent = await conversationsOfAgent(families, projectDir, selection.agent);
    ids = ids ? new Set([...ids].filter((id) => ofAgent.has(id))) : ofAgent;
  }
  const before = selection.before === undefined ? undefined : Date.parse(selection.before);
  for (const family of families) {
    const privacy = family.privacy;
    if (!privacy || !selection.kinds.includes(privacy.kind) || (options.kinds && !options.kinds.includes(privacy.kind))) continue;
    const store = storeOf(family, projectDir);
    if (!store.remove) continue;
    // remove() may look at a line twice (a counting pass, then the rewrite): records are counted by key.
    const taken = new Set<string>();
    const judge: RecordJudge = {
      needles: ids && ids.size <= 2000 ? [...ids] : undefined,
      drop: (record) => {
        if (before !== undefined && !(Date.parse(String(record.ts)) < before)) return false;
        const belongs = privacy.conversations(record);
        if (ids && !belongs.some((id) => ids!.has(id))) return false;
        taken.add(store.keyOf(record) ?? JSON.stringify(record));
        for (const id of belongs) if (!ids || ids.has(id)) removal.conversations.add(id);
        return !options.dryRun;
      },
    };
    if (ids && ids.size === 0) continue;
    await store.remove(judge);
    if (taken.size > 0) removal.rows[family.name] = taken.size;
  }
  if (!options.dryRun) await leaveSearchIndex(projectDir, removal);
  return removal;
}

async function conversationsOfAgent(families: readonly RegisteredFamily[], projectDir: string, agent: string): Promise<Set<string>> {
  const found = new Set<string>();
  for (const family of families) {
    const privacy = family.privacy;
    if (!privacy?.agent) continue;
    const store = storeOf(family, projectDir);
    if (!store.remove) continue;
    // A look that removes nothing: remove() parses only the lines naming the agent.
    await store.remove({
      needles: [`"${agent}"`],
      drop: (record) => {
        if (privacy.agent!(record) === agent) for (const id of privacy.conversations(record)) found.add(id);
        return false;
      },
    });
  }
  return found;
}
