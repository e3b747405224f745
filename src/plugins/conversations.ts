// The conversations family (spec §2.2, §4.3): transcripts, inline below 256 KiB
// and as blobs above, following trace pushes so `--only traces` takes them along.
import { CONVERSATIONS_FAMILY, conversationStore, stringMember, type TracerPlugin } from '../plugin/index.js';

const conversationsFamily: TracerPlugin = {
  name: 'conversations',
  apply(kernel) {
    kernel.registerFamily({
      ...CONVERSATIONS_FAMILY,
      manifestKey: 'conversation_keys',
      follows: 'traces',
      store: conversationStore,
      privacy: { kind: 'content', conversations: (record) => stringMember(record, 'conversation_id') },
    });
  },
};

export default conversationsFamily;
