import { defaultRoute } from '../kernel/families.js';
import type { TracerPlugin } from '../kernel/kernel.js';

/** The summaries family (spec §2.2, wire contract 'Content ids'). */
const summariesFamily: TracerPlugin = {
  name: 'summaries',
  apply(kernel) {
    kernel.registerFamily(
      {
        name: 'summaries',
        route: defaultRoute('summaries'),
        idMember: 'id',
        required: ['id', 'ts', 'conversation_url'],
        members: { id: 'sha256', ts: 'timestamp', conversation_url: 'string' },
        file: 'session-summaries.jsonl',
        storage: ['session-summaries.jsonl'],
      },
      // Spec §4.2: summaries follow trace pushes, so `--only traces` takes them along.
      { manifestKey: 'summary_ids', follows: 'traces' },
    );
  },
};

export default summariesFamily;
