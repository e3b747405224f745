// Tombstones around a push or a pull (plugins/tombstones.ts taps the kernel's
// beforeTransfer and afterTransfer hooks and calls these), loaded only then.
import type { Kernel } from '../kernel/kernel.js';
import type { RecordFilter, SyncSession } from '../kernel/types.js';
import { storeOf } from '../engine/family-store.js';
import { isRouteMissing } from '../protocol/problem.js';
import { PRIVACY_CAPABILITY, type PrivacyChannel } from '../protocol/privacy.js';
import { forgottenLocalKeys, syncTombstones } from './sync.js';
import type { LocalRemoval } from './apply.js';

export async function syncSessionTombstones(kernel: Kernel, session: SyncSession): Promise<void> {
  const channel = session.transport.capability?.<PrivacyChannel>(PRIVACY_CAPABILITY);
  if (!channel) return;
  let result;
  try {
    result = await syncTombstones({
      families: kernel.families,
      projectDir: session.project.dir,
      remote: { name: session.remote.name, url: session.remote.record.url },
      channel,
    });
  } catch (error) {
    // A service from before forget existed has no tombstones to tell.
    if (isRouteMissing(error)) return;
    throw error;
  }
  if (result.retold > 0)
    session.warn({
      code: 'tombstones_retold',
      message: `Remote "${session.remote.name}" had lost ${result.retold} tombstone${result.retold === 1 ? '' : 's'} (restored from an older backup?); they were handed back, and it removed what they name again`,
    });
  const said = describeRemoval(result.removal);
  if (said)
    session.warn({
      code: 'forgotten_on_remote',
      message: `Remote "${session.remote.name}" forgot ${said}; removed from this machine too`,
    });
}

export function describeRemoval(removal: LocalRemoval): string | undefined {
  const total = Object.values(removal.rows).reduce((sum, n) => sum + n, 0);
  if (total === 0) return undefined;
  const families = Object.entries(removal.rows)
    .map(([family, n]) => `${n} ${family}`)
    .join(', ');
  const ids = [...removal.conversations];
  const of =
    ids.length === 0
      ? ''
      : ids.length <= 3
        ? ` of conversation${ids.length === 1 ? '' : 's'} ${ids.join(', ')}`
        : ` of ${ids.length} conversations`;
  return `${total} row${total === 1 ? '' : 's'} (${families})${of}`;
}

/** Where a session keeps the recorded tombstones by family, read by the first filter that needs them. */
const RECORDED = 'tombstones:recorded';

/** A push holds back what a tombstone names: a copy that came back (from another remote, say) is never sent again. */
export function forgottenFilter(kernel: Kernel, session: SyncSession, familyName: string): RecordFilter {
  let keys = new Set<string>();
  const family = kernel.family(familyName)!;
  const store = storeOf(family, session.project.dir);
  return {
    reason: 'forgotten',
    prepare: async () => {
      // Read once per session, whatever the number of families that ask.
      let recorded = session.state.get(RECORDED) as ReturnType<typeof forgottenLocalKeys> | undefined;
      if (!recorded) session.state.set(RECORDED, (recorded = forgottenLocalKeys(session.project.dir)));
      const stones = (await recorded).get(familyName) ?? [];
      keys = new Set(stones.map((stone) => store.keyOf(stone.identity)).filter((key): key is string => key !== undefined));
    },
    accept: (record) => keys.size === 0 || !keys.has(store.keyOf(record) ?? ''),
  };
}
