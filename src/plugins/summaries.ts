// The summaries family (spec §2.2, wire contract "Content ids"): the latest summary per conversation.
import { conversationIdsOfUrls, stringMember, type FamilyPrivacy, type TracerPlugin } from '../plugin/index.js';

/** Summaries are content (issue 31); they name their conversation, and always by URL (`<agent>://session/<id>`). */
const SUMMARY_PRIVACY: FamilyPrivacy = {
  kind: 'content',
  conversations: (record) => {
    const named = stringMember(record, 'conversation_id');
    return named.length > 0 ? named : conversationIdsOfUrls([record.conversation_url]);
  },
  agent: (record) => stringMember(record, 'agent')[0],
};

const summariesFamily: TracerPlugin = {
  name: 'summaries',
  apply(kernel) {
    kernel.registerFamily({
      name: 'summaries',
      idMember: 'id',
      required: ['id', 'ts', 'conversation_url'],
      members: { id: 'sha256', ts: 'timestamp', conversation_url: 'string' },
      file: 'session-summaries.jsonl',
      storage: ['session-summaries.jsonl'],
      manifestKey: 'summary_ids',
      // Spec §4.2: summaries follow trace pushes, so `--only traces` takes them along.
      follows: 'traces',
      // An agent's closing words: redacted on the way out, and refused by the service while they hold a secret,
      // under whatever name an uploader gives them.
      text: { members: ['summary'], untyped: true },
      privacy: SUMMARY_PRIVACY,
    });
  },
};

export default summariesFamily;
