import { spawn, type ChildProcess } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/cli.js';
import { spawnService, stopAllServices } from '../helpers/service.js';
import { machine, syncState } from '../helpers/sync-fixtures.js';
import { dice, FAST_RETRY_ENV, pause, replayable, requestsSeen, rounds, SOAK, spawnTracer, untilRequests } from './support/faults.js';
import { assertManifestAgrees, assertServerHoldsExactly, census, FAMILIES, MANIFEST_KEYS, seed } from './support/stores.js';

/**
 * Issue 19 as it was found: both cores busy, thousands of traces, and the
 * service SIGKILLed a moment into the push. A request refused while fewer than
 * three were in flight used to be dropped: the push said "Pushed 500 items",
 * exited 0, and the scan mark passed rows that never left. Now, before anything
 * is re-run: every id the manifest lists is on the service, and a push that
 * exited 0 left nothing behind; after a restart one push converges.
 */
test.after(async () => {
  await stopAllServices();
  cleanup();
});

const ROUNDS = rounds(1, 6);
const TRACES = Number(process.env.TRACER_BUSY_TRACES ?? (SOAK ? 30_000 : 4_000));

/** Busy loops on every core, started and stopped by the test itself. */
function busyCores(count: number): ChildProcess[] {
  return Array.from({ length: count }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
}

test('both cores busy: the service SIGKILLed mid-push never leaves a push that reports success or a manifest ahead of the service', async () => {
  const d = dice('busy-machine', 0x5eed_1901);
  const busy = busyCores(2);
  try {
    await replayable(d, async () => {
      const service = await spawnService({ backend: 'sqlite', logLevel: 'info' });
      await service.createProject('acme', 'web');
      const token = await service.createToken({ org: 'acme', project: 'web', name: 'busy' });
      const a = await machine({ remoteUrl: `${service.url}/acme/web`, token, env: FAST_RETRY_ENV });
      for (let round = 1; round <= ROUNDS; round++) {
        seed(a, d, `busy-r${round}`, { traces: TRACES, transcripts: [] });
        // As the issue found it: the kill lands a moment after the first batch of traces reached the service.
        const from = requestsSeen(service);
        const delay = d.int(0, 400);
        const running = spawnTracer(['push'], { cwd: a.repo, home: a.home, env: FAST_RETRY_ENV });
        const midRun = await untilRequests(service, from, 2, running);
        await pause(delay);
        await service.kill();
        const interrupted = await running.result;
        d.note(
          `round ${round}: SIGKILL ${delay} ms after the first batch (${midRun ? 'mid-run' : 'after'}), push exited ${interrupted.code}`,
        );
        assert.not.match(interrupted.stderr, 'internal_error', interrupted.stderr);
        if (interrupted.code !== 0) assert.match(interrupted.stderr, /\((network_error|timeout|service_unavailable)\)/, interrupted.stderr);

        await service.restart();
        const held = await census(service, token, 'acme', 'web');
        const synced = syncState(a)?.remotes?.origin?.synced ?? {};
        for (const family of FAMILIES) {
          const onService = new Set(held[family]);
          const missing = (synced[MANIFEST_KEYS[family]] ?? []).filter((id: string) => !onService.has(id));
          assert.is(missing.length, 0, `round ${round}: ${missing.length} ${family} listed as synced are not on the service`);
        }
        if (interrupted.code === 0) await assertServerHoldsExactly(service, token, a, `round ${round}: the push exited 0`);

        const again = await a.main(['push'], { env: FAST_RETRY_ENV });
        assert.is(again.code, 0, `round ${round} re-run: ${again.stderr}`);
        await assertServerHoldsExactly(service, token, a, `round ${round} after the re-run`);
        assertManifestAgrees(a, 'origin', `round ${round} after the re-run`);
        const full = await a.main(['push', '--full', '--json']);
        assert.is(JSON.parse(full.stdout).push.totals.sent, 0, `round ${round}: push --full finds nothing left`);
      }
      await service.stop();
    });
  } finally {
    for (const child of busy) child.kill('SIGKILL');
  }
});

test.run();
