import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/cli.js';
import { startService, stopAllServices } from '../helpers/service.js';
import { addLedger, addTrace, machine, type Machine } from '../helpers/sync-fixtures.js';
import { dice, pause, replayable, rounds, SOAK, spawnTracer, type Dice } from './support/faults.js';
import { assertIntact, assertManifestAgrees, assertSameStores, assertServerHoldsExactly, seed } from './support/stores.js';

/**
 * Issue 6, "Two machines at once": two homes and two clones of one project push,
 * pull and sync against the same service at the same time, round after round,
 * while new rows keep appearing on both (some appended while a command runs).
 * Every command succeeds, and after a last sync each way both machines hold the
 * same rows, bytes and index, and the service holds each row once.
 */
test.after(async () => {
  await stopAllServices();
  cleanup();
});

const ROUNDS = rounds(5, 40);
const COMMANDS = [['sync'], ['push'], ['pull']] as const;

function grow(m: Machine, d: Dice, label: string): void {
  seed(m, d, label, {
    traces: d.int(1, SOAK ? 700 : 60),
    // Mostly small transcripts; now and then one over 256 KiB that takes the blob path.
    transcripts: [d.int(100, 5_000), ...(d.next() < 0.3 ? [300 * 1024 + d.int(0, 4096)] : [])],
  });
}

test('two machines pushing, pulling and syncing the same project at once converge to the same set', async () => {
  const d = dice('two-machines', 0x5eed_0604);
  await replayable(d, async () => {
    const service = await startService();
    await service.createProject('acme', 'web');
    const token = await service.createToken({ org: 'acme', project: 'web', name: 'reliability' });
    const remoteUrl = `${service.url}/acme/web`;
    const a = await machine({ remoteUrl, token });
    const b = await machine({ cloneOf: a.repo, remoteUrl, token });

    for (let round = 1; round <= ROUNDS; round++) {
      grow(a, d, `a${round}`);
      grow(b, d, `b${round}`);
      const onA = d.pick(COMMANDS);
      const onB = d.pick(COMMANDS);
      const lateRows = d.int(0, 3);
      d.note(`round ${round}: A ${onA.join(' ')} | B ${onB.join(' ')}, ${lateRows} rows appended mid-run on each`);
      const runA = spawnTracer(onA, { cwd: a.repo, home: a.home });
      const runB = spawnTracer(onB, { cwd: b.repo, home: b.home });
      for (let i = 0; i < lateRows; i++) {
        await pause(d.int(0, 150));
        for (const m of [a, b]) addLedger(m, [addTrace(m, { late: round, i }).id]);
      }
      const [doneA, doneB] = await Promise.all([runA.result, runB.result]);
      assert.is(doneA.code, 0, `round ${round} A ${onA.join(' ')}: ${doneA.stderr}`);
      assert.is(doneB.code, 0, `round ${round} B ${onB.join(' ')}: ${doneB.stderr}`);
      assertIntact(a, `round ${round} A`);
      assertIntact(b, `round ${round} B`);
    }

    // Settle: A sends, B sends and receives, A receives.
    for (const m of [a, b, a]) {
      const settled = await m.main(['sync']);
      assert.is(settled.code, 0, settled.stderr);
    }
    assertSameStores(a, b, 'after settling');
    await assertServerHoldsExactly(service, token, a, 'after settling');
    for (const m of [a, b]) {
      assertManifestAgrees(m, 'origin', 'after settling');
      const again = await m.main(['sync', '--json']);
      const result = JSON.parse(again.stdout);
      assert.is(result.push.totals.sent, 0, 'nothing left to push');
      assert.is(result.pull.totals.inserted, 0, 'nothing left to pull');
    }
  });
});

test.run();
