import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/cli.js';
import {
  addItems,
  FakeRemote,
  FATES,
  localProject,
  localRows,
  PAGE_SIZE,
  pull,
  savedState,
  type Fate,
  type LocalProject,
} from './fake-remote.js';

/**
 * Issue 19, pull: a page that fails for good fails the pull, the stored cursor
 * never passes it, and the next pull brings the rest with no duplicate row,
 * whether the failure comes at once or late, on the page read ahead or not.
 */
test.after(() => cleanup());

const ROWS = 230; // 10 pages of PAGE_SIZE

/** A remote holding `rows` rows, with `fate` deciding each page request. */
function remoteWith(rows: number, fate: (index: number) => Fate): FakeRemote {
  const source = localProject();
  const records = addItems(source, 0, rows);
  const fake = new FakeRemote(() => 'ok', fate);
  fake.store(records.map((record) => JSON.stringify(record)));
  return fake;
}

function assertNoDuplicates(local: LocalProject, context: string): void {
  const ids = localRows(local).map((row) => String(row.id));
  assert.is(new Set(ids).size, ids.length, `${context}: a row is stored twice`);
}

async function assertCursorWithinStored(local: LocalProject, context: string): Promise<void> {
  const { cursor } = await savedState(local);
  const stored = localRows(local).length;
  // The fake's cursor is the count of rows before it: it may never pass what is stored here.
  assert.ok(cursor === undefined || Number(cursor) <= stored, `${context}: cursor ${cursor} passes the ${stored} rows stored`);
}

async function assertHealthyPullCompletes(local: LocalProject, fake: FakeRemote, context: string): Promise<void> {
  const healthy = new FakeRemote();
  healthy.store(fake.rows.map((row) => JSON.stringify(row)));
  const again = await pull(local, healthy);
  assert.ok(again.ok, `${context}: the next pull succeeds`);
  assertNoDuplicates(local, context);
  assert.equal(
    localRows(local).map((row) => String(row.id)),
    fake.rows.map((row) => String(row.id)),
    `${context}: every row, in the remote's order`,
  );
}

for (const fate of ['fail-fast', 'fail-slow', 'unauthorized'] as const) {
  test(`page 4 fails for good (${fate}): the pull fails, the cursor stays before it, the next pull brings the rest once`, async () => {
    const fake = remoteWith(ROWS, (index) => (index >= 4 ? fate : 'ok'));
    const local = localProject();
    const result = await pull(local, fake);
    assert.not.ok(result.ok, 'the pull must fail');
    assert.is.not(result.ok ? 0 : result.error.exitCode, 0);
    assert.is(localRows(local).length, 4 * PAGE_SIZE, 'the four pages before the failure are stored');
    const { cursor } = await savedState(local);
    assert.is(cursor, String(4 * PAGE_SIZE), 'the cursor is where the failed page starts');
    await assertHealthyPullCompletes(local, fake, fate);
  });
}

test('property: any schedule of page fates, any number of rows: cursor never passes what is stored, the next pull converges', async () => {
  const seed = Number(process.env.TRACER_FUZZ_SEED ?? 0x19);
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.constantFrom(...FATES), { minLength: 1, maxLength: 12 }),
      fc.integer({ min: 0, max: 200 }),
      async (schedule, rows) => {
        const fake = remoteWith(rows, (index) => schedule[index] ?? 'ok');
        const local = localProject();
        const result = await pull(local, fake);
        const pagesNeeded = Math.max(1, Math.ceil(rows / PAGE_SIZE));
        const failedEarly = schedule.slice(0, pagesNeeded).some((fate) => fate !== 'ok');
        assert.is(!result.ok, failedEarly, `schedule ${schedule.join(',')} over ${rows} rows`);
        assertNoDuplicates(local, `schedule ${schedule.join(',')}`);
        await assertCursorWithinStored(local, `schedule ${schedule.join(',')}`);
        await assertHealthyPullCompletes(local, fake, `schedule ${schedule.join(',')}`);
      },
    ),
    { seed, numRuns: process.env.TRACER_SOAK === '1' ? 300 : 40 },
  );
});

test.run();
