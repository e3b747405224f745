import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/cli.js';
import {
  addItems,
  FakeRemote,
  FATES,
  ITEMS_PER_REQUEST,
  localProject,
  localRows,
  push,
  savedState,
  type Fate,
  type LocalProject,
} from './fake-remote.js';

/**
 * Issue 19: a request that fails is never counted as sent. Whatever the timing of
 * a failure (at once, late, after the remote applied the batch) and however slowly
 * the store is read, the push fails with the request's error, the manifest and the
 * scan mark cover only rows the remote acknowledged, and a later healthy push
 * leaves the remote with exactly the local rows, each stored once.
 */
test.after(() => cleanup());

const ROWS = 300; // 15 batches of ITEMS_PER_REQUEST

/** The invariants of a run that may have failed, whatever failed. */
async function assertOnlyAcknowledgedRecorded(local: LocalProject, fake: FakeRemote, context: string): Promise<void> {
  const state = await savedState(local);
  for (const id of state.synced) assert.ok(fake.acknowledged.has(id), `${context}: ${id} is listed as synced but was never acknowledged`);
  const rows = localRows(local);
  const mark = state.markRecords ?? 0;
  for (const row of rows.slice(0, mark))
    assert.ok(state.synced.has(String(row.id)), `${context}: the scan mark (${mark} rows) passes ${String(row.id)}, which is not synced`);
}

/** After a healthy push: the remote holds exactly the local rows, each once, and the client knows it. */
async function assertConverged(local: LocalProject, fake: FakeRemote, context: string): Promise<void> {
  const healthy = await push(local, fake);
  assert.ok(healthy.ok, `${context}: a healthy push must succeed: ${healthy.ok ? '' : healthy.error.message}`);
  const ids = localRows(local).map((row) => String(row.id));
  assert.equal(fake.rows.map((row) => String(row.id)).sort(), [...ids].sort(), `${context}: the remote holds exactly the local rows`);
  for (const [id, count] of fake.inserts) assert.is(count, 1, `${context}: ${id} stored ${count} times`);
  const state = await savedState(local);
  assert.equal([...state.synced].sort(), [...ids].sort(), `${context}: the manifest lists every local row`);
  assert.is(state.markRecords, ids.length, `${context}: the scan mark reaches the end of the store`);
  const again = await push(local, fake);
  assert.ok(again.ok && again.report.totals.sent === 0, `${context}: a push after that sends nothing`);
}

function failingAt(k: number, fate: Fate, after: Fate = 'ok'): (index: number) => Fate {
  return (index) => (index === k ? fate : index > k ? after : 'ok');
}

for (const fate of ['fail-fast', 'fail-slow', 'unauthorized'] as const) {
  test(`batch 3 fails (${fate}) while the store is read slowly: the push fails and records only acknowledged rows`, async () => {
    const local = localProject();
    addItems(local, 0, ROWS);
    // The scripted failure is for good: later batches fail the same way (a remote gone, a token revoked).
    const fake = new FakeRemote(failingAt(3, fate, fate === 'unauthorized' ? 'unauthorized' : 'ok'));
    const result = await push(local, fake, 3);
    assert.not.ok(result.ok, 'the push must fail');
    if (!result.ok) {
      assert.is(result.error.code, fate === 'fail-fast' ? 'network_error' : fate === 'fail-slow' ? 'timeout' : 'unauthorized');
      assert.is.not(result.error.exitCode, 0);
    }
    await assertOnlyAcknowledgedRecorded(local, fake, fate);
    // The three batches before the failure were acknowledged: the mark moved over them, no further.
    const state = await savedState(local);
    assert.ok((state.markRecords ?? 0) >= 3 * ITEMS_PER_REQUEST, `mark ${state.markRecords} covers the acknowledged prefix`);
    assert.ok((state.markRecords ?? 0) < ROWS, 'the mark stops before the failed batch');
    await assertConverged(local, new FakeRemoteLike(fake), fate);
  });
}

test('a remote that stops listening mid-push (every later request refused) fails the push; nothing unsent is marked synced', async () => {
  const local = localProject();
  addItems(local, 0, ROWS);
  const fake = new FakeRemote((index) => (index >= 5 ? 'fail-fast' : 'ok'));
  const result = await push(local, fake, 3);
  assert.not.ok(result.ok);
  assert.is(result.ok ? '' : result.error.code, 'network_error');
  await assertOnlyAcknowledgedRecorded(local, fake, 'stopped listening');
  await assertConverged(local, new FakeRemoteLike(fake), 'stopped listening');
});

test('an answer lost after the remote applied the batch: the push fails, the rows stay unsynced here, and the next push stores nothing twice', async () => {
  const local = localProject();
  addItems(local, 0, ROWS);
  const fake = new FakeRemote(failingAt(2, 'lost'));
  const result = await push(local, fake, 3);
  assert.not.ok(result.ok);
  const state = await savedState(local);
  const lost = localRows(local)
    .slice(2 * ITEMS_PER_REQUEST, 3 * ITEMS_PER_REQUEST)
    .map((row) => String(row.id));
  for (const id of lost) assert.not.ok(state.synced.has(id), `${id}: its answer was lost, so it is not recorded as synced`);
  await assertOnlyAcknowledgedRecorded(local, fake, 'lost answer');
  await assertConverged(local, new FakeRemoteLike(fake), 'lost answer');
});

test('the only failure is the last batch, failing at once after everything was read: still a failed push', async () => {
  const local = localProject();
  addItems(local, 0, ROWS);
  const fake = new FakeRemote(failingAt(ROWS / ITEMS_PER_REQUEST - 1, 'fail-fast'));
  const result = await push(local, fake, 0);
  assert.not.ok(result.ok);
  await assertOnlyAcknowledgedRecorded(local, fake, 'last batch');
  await assertConverged(local, new FakeRemoteLike(fake), 'last batch');
});

test('property: any schedule of ok / fail fast / fail slow / answer lost / 401 per batch, any reading speed', async () => {
  const seed = Number(process.env.TRACER_FUZZ_SEED ?? 0x19);
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.constantFrom(...FATES), { minLength: 1, maxLength: 16 }),
      fc.integer({ min: 0, max: 4 }),
      fc.integer({ min: 1, max: 160 }),
      async (schedule, readDelayMs, rows) => {
        const local = localProject();
        addItems(local, 0, rows);
        const fake = new FakeRemote((index) => schedule[index] ?? 'ok');
        const result = await push(local, fake, readDelayMs);
        // Non-zero exactly when some batch failed for good.
        assert.is(!result.ok, fake.failedSends > 0, `schedule ${schedule.join(',')}: ok=${result.ok} failed sends=${fake.failedSends}`);
        await assertOnlyAcknowledgedRecorded(local, fake, `schedule ${schedule.join(',')}`);
        // New rows arrive, then a healthy run converges.
        addItems(local, rows, 7);
        await assertConverged(local, new FakeRemoteLike(fake), `schedule ${schedule.join(',')}`);
      },
    ),
    { seed, numRuns: process.env.TRACER_SOAK === '1' ? 300 : 40 },
  );
});

/** The same remote (its rows, its insert counts) with every request answered from now on. */
class FakeRemoteLike extends FakeRemote {
  constructor(from: FakeRemote) {
    super();
    this.rows.push(...from.rows);
    for (const [id, count] of from.inserts) this.inserts.set(id, count);
    for (const id of from.acknowledged) this.acknowledged.add(id);
  }
}

test.run();
