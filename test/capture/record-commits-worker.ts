// A writer of attribution-state.json for attribution-state-lock.test.ts:
// records `count` commits named `<name>-<n>`, one read and write each, as
// many post-commit hooks one after another would.
import { recordCommit } from '../../src/capture/ledger/attribution-state.js';

const [projectDir = '', name = '', count = '0'] = process.argv.slice(2);
for (let index = 0; index < Number(count); index += 1) {
  const ts = new Date(Date.UTC(2025, 0, 1, 0, 0, index)).toISOString();
  await recordCommit(projectDir, { commit: `${name}-${index}`, ts, ledger_sha: `${name}${index}`, claims: {} });
}
