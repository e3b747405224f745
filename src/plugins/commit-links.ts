import { defaultRoute } from '../kernel/families.js';
import type { TracerPlugin } from '../kernel/kernel.js';

/** The commit-links family (spec §2.2, wire contract 'Content ids'). */
const commitLinksFamily: TracerPlugin = {
  name: 'commit-links',
  apply(kernel) {
    kernel.registerFamily(
      {
        name: 'commit-links',
        route: defaultRoute('commit-links'),
        idMember: 'id',
        required: ['id', 'ts', 'commit'],
        members: { id: 'sha256', ts: 'timestamp', commit: 'commit' },
        file: 'commit-links.jsonl',
        storage: ['commit-links.jsonl'],
      },
      { manifestKey: 'commit_link_ids' },
    );
  },
};

export default commitLinksFamily;
