// store/file-lock.ts, the lock every tracer lock is: a holder killed by SIGKILL
// is taken over at once (never waited for), a live one is waited for and named,
// a pid taken since by another process is no holder, and staleness is left for
// what cannot be asked (another host, an older tracer's lock folder).
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { holderState, processRecord, takeLock, type LockHolder } from '../../src/store/file-lock.js';
import { tempDir } from '../helpers/cli.js';
import { killed, lockHolder } from './lock-holder.js';

function record(path: string): LockHolder {
  return JSON.parse(readFileSync(path, 'utf8')) as LockHolder;
}

test('a holder killed by SIGKILL is taken over at once: the waiter never waits for it as for a live one', async () => {
  const path = join(tempDir('tracer-lock-'), 'fold.lock');
  const child = await lockHolder(path);
  assert.is(record(path).pid, child.pid);
  assert.is(record(path).purpose, 'the background fold');
  await killed(child);
  const slow: LockHolder[] = [];
  const release = await takeLock(path, { waitMs: 30_000, slowAfterMs: 0, onSlowHolder: (h) => slow.push(h) });
  assert.ok(release, 'the lock was taken');
  assert.equal(slow, [], 'a dead holder is not waited for');
  assert.is(record(path).pid, process.pid);
  await release!();
  assert.not.ok(existsSync(path), 'released: no lock left');
  assert.not.ok(existsSync(`${path}.break`), 'no take-over guard left');
});

test('a live holder is waited for and named; with no wait the lock is not taken', async () => {
  const path = join(tempDir('tracer-lock-'), 'fold.lock');
  const child = await lockHolder(path);
  try {
    assert.is(await takeLock(path, { waitMs: 0 }), undefined);
    const slow: LockHolder[] = [];
    const release = await takeLock(path, { waitMs: 300, slowAfterMs: 50, onSlowHolder: (h) => slow.push(h) });
    assert.is(release, undefined, 'still held after the wait');
    assert.is(slow.length, 1, 'the waiter was told once');
    assert.is(slow[0]!.pid, child.pid);
    assert.is(holderState(slow[0]!), 'alive');
  } finally {
    await killed(child);
  }
  // Killed while another waits: that waiter gets it.
  const release = await takeLock(path, { waitMs: 30_000 });
  assert.ok(release);
  await release!();
});

test('a waiter gets the lock the moment a killed holder is found, while others wait on the same lock', async () => {
  const path = join(tempDir('tracer-lock-'), 'fold.lock');
  const child = await lockHolder(path);
  const waiters = Array.from({ length: 4 }, () => takeLock(path, { waitMs: 30_000, pollMs: 5 }));
  await new Promise((resolve) => setTimeout(resolve, 50));
  await killed(child);
  // One at a time: each takes it after the one before released it, none at once with another.
  let holders = 0;
  let most = 0;
  await Promise.all(
    waiters.map(async (waiting) => {
      const release = await waiting;
      assert.ok(release);
      holders += 1;
      most = Math.max(most, holders);
      await new Promise((resolve) => setTimeout(resolve, 10));
      holders -= 1;
      await release!();
    }),
  );
  assert.is(most, 1, 'never two holders at once');
  assert.not.ok(existsSync(path));
});

test('a pid now used by another process (another start time) is no holder', async () => {
  const path = join(tempDir('tracer-lock-'), 'fold.lock');
  const self = processRecord();
  if (self.start === undefined) return; // no /proc: only the pid can be asked
  const reused: LockHolder = { ...self, start: String(Number(self.start) + 1), ts: Date.now(), token: 'old' };
  writeFileSync(path, JSON.stringify(reused));
  assert.is(holderState(reused), 'dead');
  const release = await takeLock(path, { waitMs: 0 });
  assert.ok(release, 'taken over without waiting');
  await release!();
});

test('another host: waited for while it keeps its lock fresh, taken once it is stale', async () => {
  const path = join(tempDir('tracer-lock-'), 'fold.lock');
  const remote: LockHolder = { pid: 1, host: 'some-other-host.invalid', ts: Date.now(), token: 'remote' };
  writeFileSync(path, JSON.stringify(remote));
  assert.is(holderState(remote), 'unknown');
  assert.is(await takeLock(path, { waitMs: 0 }), undefined);
  const old = new Date(Date.now() - 60_000);
  utimesSync(path, old, old);
  const release = await takeLock(path, { waitMs: 0 });
  assert.ok(release);
  await release!();
});

test("an older tracer's lock folder is taken over once stale, and kept while fresh", async () => {
  const path = join(tempDir('tracer-lock-'), 'fold.lock');
  mkdirSync(path);
  assert.is(await takeLock(path, { waitMs: 0 }), undefined);
  const old = new Date(Date.now() - 60_000);
  utimesSync(path, old, old);
  const release = await takeLock(path, { waitMs: 0 });
  assert.ok(release);
  await release!();
  assert.not.ok(existsSync(path));
});

test('what is not a lock is never removed: a folder with files in it stays, and a name without .lock is refused', async () => {
  const dir = tempDir('tracer-lock-');
  const folder = join(dir, 'data.lock');
  mkdirSync(folder);
  writeFileSync(join(folder, 'precious'), 'keep me');
  const old = new Date(Date.now() - 60_000);
  utimesSync(folder, old, old);
  assert.is(await takeLock(folder, { waitMs: 0 }), undefined);
  assert.is(readFileSync(join(folder, 'precious'), 'utf8'), 'keep me');
  try {
    await takeLock(join(dir, 'test'), { waitMs: 0 });
    assert.unreachable('a path without .lock is refused');
  } catch (error) {
    assert.match((error as Error).message, /is not a lock file's name/);
  }
});

test("a hung holder taken over does not remove its successor's lock when it finally releases", async () => {
  const path = join(tempDir('tracer-lock-'), 'fold.lock');
  const first = await takeLock(path, { waitMs: 0 });
  assert.ok(first);
  const old = new Date(Date.now() - 5_000);
  utimesSync(path, old, old);
  // This process is alive: only as hung (untouched past hungMs) is its lock taken.
  const second = await takeLock(path, { waitMs: 0, hungMs: 1_000 });
  assert.ok(second, 'the hung holding is taken over');
  await first!();
  assert.ok(existsSync(path), "the successor's lock is still there");
  await second!();
  assert.not.ok(existsSync(path));
});

test.run();
