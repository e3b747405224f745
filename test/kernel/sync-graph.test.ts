import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import nock from 'nock';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withContentId } from '../../src/core/content-id.js';
import { runPull } from '../../src/engine/pull.js';
import { runPush } from '../../src/engine/push.js';
import ledgers from '../../src/plugins/ledgers.js';
import traces from '../../src/plugins/traces.js';
import { RemoteSyncState } from '../../src/engine/sync-state.js';
import { cleanup } from '../helpers/cli.js';
import { appendRows, readRows } from '../helpers/sync-fixtures.js';
import { BASE, kernelWith, remote, session } from '../plugins/harness.js';

/** The push/pull graph against nock: batch bounds, item-level refusals, paging and cursors. */
test.before(() => nock.disableNetConnect());
test.after.each(() => nock.cleanAll());
test.after(() => {
  nock.enableNetConnect();
  cleanup();
});

const trace = (n: number, extra: Record<string, unknown> = {}) =>
  withContentId({ ts: '2024-05-01T00:00:00.000Z', n, ...extra }, 'id') as unknown as Record<string, unknown> & { id: string };

/** The manifest as the run left it on disk. */
async function savedState(projectDir: string): Promise<RemoteSyncState> {
  const state = await RemoteSyncState.load(projectDir, 'origin', remote().record.url);
  await state.loadManifests();
  return state;
}

test('1200 traces go in requests of at most 500 items; the manifest records them all', async () => {
  const { kernel, project } = await kernelWith(traces);
  const records = Array.from({ length: 1200 }, (_, n) => trace(n));
  appendRows(join(project.dir, 'traces.jsonl'), records);
  const sizes: number[] = [];
  nock(BASE)
    .post('/api/v1/sync/traces')
    .times(3)
    .reply((_uri, body) => {
      const count = (body as { items: unknown[] }).items.length;
      sizes.push(count);
      return [200, { received: count, inserted: count, duplicates: 0 }];
    });
  const { session: s, close } = await session(kernel, project, { push: { full: true } });
  kernel.hooks.preflight.tap('none', () => undefined);
  const report = await runPush(kernel, s);
  close();
  assert.equal(sizes, [500, 500, 200]);
  assert.is(report.totals.sent, 1200);
  const state = await savedState(project.dir);
  assert.is(state.count('trace_ids'), 1200);
});

test('batches are split by bytes too', async () => {
  const { kernel, project } = await kernelWith(traces);
  const big = 'x'.repeat(3 * 1024 * 1024);
  appendRows(join(project.dir, 'traces.jsonl'), [trace(1, { big }), trace(2, { big }), trace(3, { big })]);
  const sizes: number[] = [];
  nock(BASE)
    .post('/api/v1/sync/traces')
    .times(3)
    .reply((_uri, body) => {
      sizes.push((body as { items: unknown[] }).items.length);
      return [200, { received: 1, inserted: 1, duplicates: 0 }];
    });
  const { session: s, close } = await session(kernel, project, { push: { full: true } });
  await runPush(kernel, s);
  close();
  assert.equal(sizes, [2, 1]);
});

test('422 invalid_item naming an index: that item stays unsynced and logged, the rest is sent again', async () => {
  const { kernel, project } = await kernelWith(traces);
  const records = [trace(1), trace(2), trace(3)];
  appendRows(join(project.dir, 'traces.jsonl'), records);
  const bodies: number[] = [];
  nock(BASE)
    .post('/api/v1/sync/traces')
    .reply((_uri, body) => {
      bodies.push((body as { items: unknown[] }).items.length);
      return [422, { code: 'invalid_item', detail: 'one item is invalid', errors: [{ index: 1, field: 'ts', message: 'is not a date' }] }];
    })
    .post('/api/v1/sync/traces')
    .reply((_uri, body) => {
      bodies.push((body as { items: unknown[] }).items.length);
      return [200, { received: 2, inserted: 2, duplicates: 0 }];
    });
  const { session: s, close } = await session(kernel, project, { push: { full: true } });
  const report = await runPush(kernel, s);
  close();
  assert.equal(bodies, [3, 2]);
  assert.is(report.totals.failed, 1);
  assert.is(report.totals.sent, 2);
  const state = await savedState(project.dir);
  assert.not.ok(state.has('trace_ids', records[1]!.id));
  const log = readRows(join(project.dir, 'push-errors.log'));
  assert.is(log[0]!.code, 'invalid_item');
  assert.is(log[0]!.item, records[1]!.id);
});

test('local records the service would refuse are not sent, and reported once', async () => {
  const { kernel, project } = await kernelWith(traces);
  appendRows(join(project.dir, 'traces.jsonl'), [{ id: 'a'.repeat(64), ts: 'yesterday' }, trace(1)]);
  nock(BASE).post('/api/v1/sync/traces').reply(200, { received: 1, inserted: 1, duplicates: 0 });
  const { session: s, warnings, close } = await session(kernel, project, { push: { full: true } });
  const report = await runPush(kernel, s);
  close();
  assert.is(report.families[0]!.invalid, 1);
  assert.is(report.totals.sent, 1);
  assert.equal(
    warnings.map((warning) => warning.code),
    ['invalid_local_record'],
  );
});

test('pull pages with the cursor, verifies ids, dedupes, and stores the cursor after the rows', async () => {
  const { kernel, project } = await kernelWith(traces, ledgers);
  const known = trace(1);
  appendRows(join(project.dir, 'traces.jsonl'), [known]);
  const fresh = [trace(2), trace(3)];
  const forged = { ...trace(4), id: 'b'.repeat(64) };
  nock(BASE)
    .get('/api/v1/sync/traces')
    .query({ limit: '500' })
    .reply(200, { items: [known, fresh[0], forged], next_cursor: 'c1', has_more: true })
    .get('/api/v1/sync/traces')
    .query({ limit: '500', after: 'c1' })
    .reply(200, { items: [fresh[1]], next_cursor: 'c2', has_more: false })
    .get('/api/v1/sync/ledgers')
    .query({ limit: '500' })
    .reply(200, { items: [], next_cursor: null, has_more: false });
  const { session: s, warnings, close } = await session(kernel, project, { direction: 'pull' });
  const report = await runPull(kernel, s);
  close();
  const tracesReport = report.families.find((family) => family.family === 'traces')!;
  assert.is(tracesReport.received, 4);
  assert.is(tracesReport.inserted, 2);
  assert.is(tracesReport.duplicates, 1);
  assert.is(tracesReport.invalid, 1);
  assert.equal(
    warnings.map((warning) => warning.code),
    ['invalid_pulled_record'],
  );
  assert.equal(
    readRows(join(project.dir, 'traces.jsonl')).map((row) => row.id),
    [known.id, fresh[0]!.id, fresh[1]!.id],
  );
  const state = await savedState(project.dir);
  assert.is(state.cursor('traces'), 'c2');
  assert.ok(state.has('trace_ids', known.id), 'rows seen on the remote count as synced');

  nock(BASE)
    .get('/api/v1/sync/traces')
    .query({ limit: '500', after: 'c2' })
    .reply(200, { items: [], next_cursor: 'c2', has_more: false })
    .get('/api/v1/sync/ledgers')
    .query({ limit: '500' })
    .reply(200, { items: [], next_cursor: null, has_more: false });
  const again = await session(kernel, project, { direction: 'pull' });
  assert.is((await runPull(kernel, again.session)).totals.inserted, 0);
  again.close();
});

test('pull checks every row whatever its order or spacing, and stores each one as it came', async () => {
  const { kernel, project } = await kernelWith(traces, ledgers);
  const written = trace(10, { meta: { b: 1, a: 'x' } });
  // An older writer's member order: not canonical, so checked the slow way.
  const { id, ...members } = trace(11, { z: true, meta: { b: 2, a: 'y' } });
  const legacy = JSON.parse(JSON.stringify({ z: members.z, id, meta: { b: 2, a: 'y' }, ts: members.ts, n: members.n })) as Record<
    string,
    unknown
  >;
  // Hashes its own non-canonical text: caught, although that text hashes to the id.
  const unsorted = { meta: { b: 3, a: 'z' }, ts: '2024-05-01T00:00:00.000Z' };
  const forged = { id: createHash('sha256').update(JSON.stringify(unsorted)).digest('hex'), ...unsorted };
  for (const spacing of [0, 2]) {
    nock(BASE)
      .get('/api/v1/sync/traces')
      .query({ limit: '500' })
      .reply(200, JSON.stringify({ items: [written, legacy, forged], next_cursor: null, has_more: false }, null, spacing), {
        'content-type': 'application/json',
      })
      .get('/api/v1/sync/ledgers')
      .query({ limit: '500' })
      .reply(200, { items: [], next_cursor: null, has_more: false });
    const { session: s, warnings, close } = await session(kernel, project, { direction: 'pull' });
    await runPull(kernel, s);
    close();
    assert.equal(
      warnings.map((warning) => warning.code),
      ['invalid_pulled_record'],
      `spacing ${spacing}`,
    );
  }
  const stored = readFileSync(join(project.dir, 'traces.jsonl'), 'utf8').trim().split('\n');
  assert.equal(stored, [JSON.stringify(written), JSON.stringify(legacy)], 'each row once, in the member order it came in');
});

test('pull --since reads from the start and leaves the cursor alone', async () => {
  const { kernel, project } = await kernelWith(traces);
  const state = await RemoteSyncState.load(project.dir, 'origin', remote().record.url);
  state.setCursor('traces', 'kept');
  await state.flush(true);
  nock(BASE)
    .get('/api/v1/sync/traces')
    .query({ limit: '500', since: '2024-05-01T00:00:00.000Z' })
    .reply(200, { items: [trace(9)], next_cursor: 'elsewhere', has_more: false });
  const { session: s, close } = await session(kernel, project, { direction: 'pull' });
  await runPull(kernel, s, '2024-05-01T00:00:00.000Z');
  close();
  assert.is((await RemoteSyncState.load(project.dir, 'origin', remote().record.url)).cursor('traces'), 'kept');
});

test.run();
