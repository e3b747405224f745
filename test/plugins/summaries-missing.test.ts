import { test } from 'uvu';
import * as assert from 'uvu/assert';
import summaries from '../../src/plugins/summaries.js';
import summariesMissing from '../../src/plugins/summaries-missing.js';
import traces from '../../src/plugins/traces.js';
import { cleanup } from '../helpers/cli.js';
import { kernelWith, session } from './harness.js';

test.after(cleanup);

test('a missing summaries route is skipped silently; other routes are not its business', async () => {
  const { kernel, project } = await kernelWith(traces, summaries, summariesMissing);
  const { session: s, warnings, close } = await session(kernel, project, { push: {} });
  const skip = await kernel.hooks.routeMissing.promise(
    { family: kernel.family('summaries'), feature: 'summaries', where: '/api/v1/sync/summaries' },
    s,
  );
  assert.equal(skip, {}, 'skipped, with no warning');
  const other = await kernel.hooks.routeMissing.promise(
    { family: kernel.family('traces'), feature: 'traces', where: '/api/v1/sync/traces' },
    s,
  );
  assert.is(other, undefined);
  close();
  assert.equal(warnings, []);
});

test('summaries follow traces and keep their manifest key', async () => {
  const { kernel } = await kernelWith(traces, summaries);
  assert.is(kernel.family('summaries')!.follows, 'traces');
  assert.is(kernel.family('summaries')!.manifestKey, 'summary_ids');
  assert.is(kernel.family('traces')!.manifestKey, 'trace_ids');
});

test.run();
