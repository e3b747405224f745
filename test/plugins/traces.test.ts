import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withContentId } from '../../src/core/content-id.js';
import ledgers from '../../src/plugins/ledgers.js';
import traces, { WAITING_FOR_ATTRIBUTION } from '../../src/plugins/traces.js';
import { cleanup } from '../helpers/cli.js';
import { appendRows } from '../helpers/sync-fixtures.js';
import { kernelWith, session } from './harness.js';

test.after(cleanup);

test('without --full only traces a ledger attributes pass; --full lets all through', async () => {
  const { kernel, project } = await kernelWith(traces, ledgers);
  const attributed = withContentId({ ts: '2024-05-01T00:00:00Z', n: 1 } as Record<string, unknown>, 'id');
  const lonely = withContentId({ ts: '2024-05-01T00:00:00Z', n: 2 } as Record<string, unknown>, 'id');
  appendRows(join(project.dir, 'ledgers.jsonl'), [
    withContentId({ ts: '2024-05-01T00:00:00Z', commit: 'a'.repeat(40), trace_ids: [attributed.id] }, 'sha'),
  ]);
  const family = kernel.family('traces')!;

  const { session: plain, close } = await session(kernel, project, { push: {} });
  const plan = await kernel.hooks.beforeFamily.promise({ family, filters: [] }, plain);
  close();
  assert.is(plan.filters.length, 1);
  assert.is(plan.filters[0]!.reason, WAITING_FOR_ATTRIBUTION);
  // The ledgers are read by prepare(), which the engine calls only once some trace is not synced yet.
  await plan.filters[0]!.prepare?.();
  assert.ok(plan.filters[0]!.accept(attributed));
  assert.not.ok(plan.filters[0]!.accept(lonely));

  const { session: full, close: closeFull } = await session(kernel, project, { push: { full: true } });
  const fullPlan = await kernel.hooks.beforeFamily.promise({ family, filters: [] }, full);
  closeFull();
  assert.equal(fullPlan.filters, []);

  const { session: other, close: closeOther } = await session(kernel, project, { push: {} });
  const ledgerPlan = await kernel.hooks.beforeFamily.promise({ family: kernel.family('ledgers')!, filters: [] }, other);
  closeOther();
  assert.equal(ledgerPlan.filters, [], 'only the traces family is filtered');
});

test.run();
