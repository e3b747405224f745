// The conversations family (spec §2.2, §4.3): transcripts, inline below 256 KiB
// and as blobs above, following trace pushes so `--only traces` takes them along.
import { CONVERSATIONS_FAMILY, conversationStore, stringMember, type FamilyPrivacy, type TracerPlugin } from '../plugin/index.js';

/** Transcripts are content (issue 31): forgotten by default, never pulled by a push token. */
const TRANSCRIPT_PRIVACY: FamilyPrivacy = { kind: 'content', conversations: (record) => stringMember(record, 'conversation_id') };

const conversationsFamily: TracerPlugin = {
  name: 'conversations',
  apply(kernel) {
    kernel.registerFamily({
      ...CONVERSATIONS_FAMILY,
      manifestKey: 'conversation_keys',
      follows: 'traces',
      store: conversationStore,
      privacy: TRANSCRIPT_PRIVACY,
    });
  },
};

export default conversationsFamily;
