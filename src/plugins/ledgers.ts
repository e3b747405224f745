// The ledgers family (spec §2.2, wire contract "Content ids"): one Agent Trace attribution per commit.
import { conversationIdsOfUrls, type FamilyPrivacy, type TracerPlugin } from '../plugin/index.js';

/** The conversations a ledger attributes lines to: `files[].conversations[].url` of its record (or, on old ledgers, of the line). */
function ledgerConversations(line: Record<string, unknown>): string[] {
  const record = typeof line.record === 'object' && line.record !== null ? (line.record as Record<string, unknown>) : line;
  const urls: unknown[] = [];
  for (const file of Array.isArray(record.files) ? record.files : []) {
    const conversations = (file as { conversations?: unknown })?.conversations;
    for (const conversation of Array.isArray(conversations) ? conversations : []) urls.push((conversation as { url?: unknown })?.url);
  }
  return conversationIdsOfUrls(urls);
}

/** Attribution (issue 31): forgotten only with --with-attribution. */
const LEDGER_PRIVACY: FamilyPrivacy = { kind: 'attribution', conversations: ledgerConversations };

const ledgersFamily: TracerPlugin = {
  name: 'ledgers',
  apply(kernel) {
    kernel.registerFamily({
      name: 'ledgers',
      idMember: 'sha',
      required: ['sha', 'ts', 'commit', 'trace_ids'],
      members: { sha: 'sha256', ts: 'timestamp', commit: 'commit', trace_ids: 'string-array' },
      file: 'ledgers.jsonl',
      storage: ['ledgers.jsonl'],
      manifestKey: 'ledger_shas',
      privacy: LEDGER_PRIVACY,
    });
  },
};

export default ledgersFamily;
