// The ledgers family (spec §2.2, wire contract "Content ids"): one Agent Trace attribution per commit.
import type { TracerPlugin } from '../plugin/index.js';

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
    });
  },
};

export default ledgersFamily;
