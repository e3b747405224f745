import { defaultRoute } from '../kernel/families.js';
import type { TracerPlugin } from '../kernel/kernel.js';

/** The ledgers family (spec §2.2, wire contract 'Content ids'). */
const ledgersFamily: TracerPlugin = {
  name: 'ledgers',
  apply(kernel) {
    kernel.registerFamily(
      {
        name: 'ledgers',
        route: defaultRoute('ledgers'),
        idMember: 'sha',
        required: ['sha', 'ts', 'commit', 'trace_ids'],
        members: { sha: 'sha256', ts: 'timestamp', commit: 'commit', trace_ids: 'string-array' },
        file: 'ledgers.jsonl',
        storage: ['ledgers.jsonl'],
      },
      { manifestKey: 'ledger_shas' },
    );
  },
};

export default ledgersFamily;
