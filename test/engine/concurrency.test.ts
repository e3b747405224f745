import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AckedPrefix } from '../../src/engine/acked-prefix.js';
import { mapLimited, outcomeOf, unwrap, WorkWindow } from '../../src/engine/concurrency.js';

/** Asserts that `promise` rejects with a message matching `pattern`. */
async function rejects(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  try {
    await promise;
  } catch (error) {
    assert.match((error as Error).message, pattern);
    return;
  }
  assert.unreachable(`expected a rejection matching ${pattern}`);
}

/** The two patterns every piece of work started now and awaited later goes through (docs/reliability.md). */

test('WorkWindow: a piece that fails while nobody waits is thrown by the next start, room and drain', async () => {
  const window = new WorkWindow(3);
  window.start(() => Promise.reject(new Error('refused')));
  // Nobody races or awaits while it fails: fewer than three run.
  await sleep(5);
  assert.ok(window.failed);
  assert.throws(() => window.start(async () => undefined), /refused/);
  await rejects(window.room(), /refused/);
  await rejects(window.drain(), /refused/);
});

test('WorkWindow: the first failure wins; settle waits for the rest without throwing', async () => {
  const window = new WorkWindow(4);
  let lateDone = false;
  window.start(async () => {
    await sleep(20);
    lateDone = true;
  });
  window.start(async () => {
    await sleep(1);
    throw new Error('first');
  });
  window.start(async () => {
    await sleep(10);
    throw new Error('second');
  });
  await window.settle();
  assert.ok(lateDone, 'settle waits for every piece');
  await rejects(window.drain(), /first/);
});

test('WorkWindow: room waits until fewer than the limit run', async () => {
  const window = new WorkWindow(2);
  let running = 0;
  let most = 0;
  for (let n = 0; n < 10; n++) {
    await window.room();
    window.start(async () => {
      most = Math.max(most, ++running);
      await sleep(2);
      running -= 1;
    });
  }
  await window.drain();
  assert.is(most, 2);
});

test('WorkWindow: a piece that throws synchronously is a failure like any other', async () => {
  const window = new WorkWindow(1);
  window.start(() => {
    throw new Error('sync');
  });
  await rejects(window.drain(), /sync/);
});

test('mapLimited: results in order; after a failure nothing new starts and the pieces under way finish first', async () => {
  assert.equal(
    await mapLimited([3, 1, 2], 2, async (n) => {
      await sleep(n);
      return n * 10;
    }),
    [30, 10, 20],
  );
  const started: number[] = [];
  const finished: number[] = [];
  await rejects(
    mapLimited([0, 1, 2, 3, 4, 5], 2, async (n) => {
      started.push(n);
      if (n === 1) throw new Error('bad item');
      await sleep(10);
      finished.push(n);
    }),
    /bad item/,
  );
  assert.ok(!started.includes(5), `started ${started.join(',')}`);
  assert.equal([...finished].sort(), started.filter((n) => n !== 1).sort(), 'every piece that started has finished when it throws');
});

test('outcomeOf: a failure held as a value is thrown where it is consumed, and never counts as unhandled', async () => {
  const held = outcomeOf(Promise.reject(new Error('later')));
  await sleep(5); // left unobserved meanwhile: an unhandled rejection would fail this run
  const outcome = await held;
  assert.throws(() => unwrap(outcome), /later/);
  assert.is(unwrap(await outcomeOf(Promise.resolve(7))), 7);
});

test('AckedPrefix: the prefix passes only acknowledged rows, in order, and stops for good at a row that ends it', () => {
  const prefix = new AckedPrefix({ end: 100, line: 4, records: 4 });
  assert.is(prefix.reached(), undefined, 'nothing moved yet');
  prefix.synced({ end: 110, line: 5 });
  assert.equal(prefix.reached(), { end: 110, line: 5, records: 5 });
  const a = prefix.pending({ end: 120, line: 6 });
  const b = prefix.pending({ end: 130, line: 7 });
  prefix.synced({ end: 140, line: 8 });
  const c = prefix.pending({ end: 150, line: 9 });
  prefix.ended();
  const d = prefix.pending({ end: 160, line: 10 });
  b();
  assert.equal(prefix.reached(), { end: 110, line: 5, records: 5 }, 'b is acknowledged but a is not');
  a();
  assert.equal(prefix.reached(), { end: 140, line: 8, records: 8 }, 'a and b, then the synced row');
  d();
  assert.equal(prefix.reached(), { end: 140, line: 8, records: 8 }, 'rows after the end never count');
  c();
  assert.equal(prefix.reached(), { end: 150, line: 9, records: 9 });
});

test('AckedPrefix: thousands of rows acknowledged out of order reach the end', () => {
  const prefix = new AckedPrefix();
  const acks = Array.from({ length: 5000 }, (_, n) => prefix.pending({ end: (n + 1) * 10, line: n + 1 }));
  for (let n = acks.length - 1; n >= 1; n--) acks[n]!();
  assert.is(prefix.reached(), undefined, 'the first row holds everything back');
  acks[0]!();
  assert.equal(prefix.reached(), { end: 50_000, line: 5000, records: 5000 });
});

test.run();
