// The traces family (spec §2.2, wire contract "Content ids"). Without --full a
// push sends only traces some ledger attributes (spec §4.2); the others wait,
// unsynced, for a ledger or for --full.
import { storeOf, stringMember, type FamilyPrivacy, type Kernel, type TracerPlugin, type TracerWarning } from '../plugin/index.js';

export const WAITING_FOR_ATTRIBUTION = 'waiting_for_attribution';

/** Forgotten only with --with-traces (issue 31): one conversation per row, and the agent that wrote it. */
const TRACE_PRIVACY: FamilyPrivacy = {
  kind: 'trace',
  conversations: (record) => stringMember(record, 'conversation_id'),
  agent: (record) => stringMember(record, 'agent')[0],
};

const tracesFamily: TracerPlugin = {
  name: 'traces',
  apply(kernel) {
    kernel.registerFamily({
      name: 'traces',
      idMember: 'id',
      required: ['id', 'ts'],
      members: { id: 'sha256', ts: 'timestamp' },
      file: 'traces.jsonl',
      storage: ['traces.jsonl'],
      manifestKey: 'trace_ids',
      privacy: TRACE_PRIVACY,
    });
    kernel.hooks.beforeFamily.tapPromise('traces', async (plan, session) => {
      if (plan.family.name !== 'traces' || session.push?.full) return plan;
      // Read the ledgers only once some trace is not synced yet: a push with nothing new never opens them.
      let attributed = new Set<string>();
      const filter = {
        reason: WAITING_FOR_ATTRIBUTION,
        prepare: async () => {
          attributed = await attributedTraceIds(kernel, session.project.dir, (warning) => session.warn(warning));
        },
        accept: (record: Record<string, unknown>) => attributed.has(String(record.id)),
      };
      return { ...plan, filters: [...plan.filters, filter] };
    });
  },
};

/** Every trace id some local ledger lists in `trace_ids`. */
export async function attributedTraceIds(kernel: Kernel, projectDir: string, warn: (warning: TracerWarning) => void): Promise<Set<string>> {
  const ids = new Set<string>();
  const ledgers = kernel.family('ledgers');
  if (!ledgers) return ids;
  for await (const ledger of storeOf(ledgers, projectDir).records(warn)) {
    if (Array.isArray(ledger.trace_ids)) for (const id of ledger.trace_ids) if (typeof id === 'string') ids.add(id);
  }
  return ids;
}

export default tracesFamily;
