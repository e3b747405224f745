// The commit-links family (spec §2.2, wire contract "Content ids"): which sessions and traces a commit came from.
import { stringMember, type FamilyPrivacy, type TracerPlugin } from '../plugin/index.js';

/** Attribution (issue 31): forgotten only with --with-attribution; a link names its sessions. */
const LINK_PRIVACY: FamilyPrivacy = { kind: 'attribution', conversations: (record) => stringMember(record, 'session_ids') };

const commitLinksFamily: TracerPlugin = {
  name: 'commit-links',
  apply(kernel) {
    kernel.registerFamily({
      name: 'commit-links',
      idMember: 'id',
      required: ['id', 'ts', 'commit'],
      members: { id: 'sha256', ts: 'timestamp', commit: 'commit' },
      file: 'commit-links.jsonl',
      storage: ['commit-links.jsonl'],
      manifestKey: 'commit_link_ids',
      // The commit's subject (issue 32) is a person's text: scanned and redacted on the way out like a summary.
      text: { members: ['subject'] },
      privacy: LINK_PRIVACY,
    });
  },
};

export default commitLinksFamily;
