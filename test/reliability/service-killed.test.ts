import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/cli.js';
import { postgresAvailable, spawnService, stopAllServices, TEST_POSTGRES_URL, type ServiceHandle } from '../helpers/service.js';
import { machine, type Machine } from '../helpers/sync-fixtures.js';
import {
  dice,
  FAST_RETRY_ENV,
  pause,
  replayable,
  requestsSeen,
  rounds,
  SOAK,
  spawnTracer,
  untilRequests,
  type Dice,
} from './support/faults.js';
import { assertIntact, assertManifestAgrees, assertSameStores, assertServerHoldsExactly, seed } from './support/stores.js';

/**
 * Issue 6, "Service killed": a real `tracer serve` child is SIGKILLed at a
 * seeded random request of a push and of a pull, restarted on the same data and
 * port, and the command run again. Afterwards the service holds exactly the
 * pushing machine's rows (each once, read off the pull routes), its manifest
 * lists exactly those rows, and the pulling machine and a fresh one hold
 * byte-identical stores. The same on PostgreSQL.
 */
test.after(async () => {
  await stopAllServices();
  cleanup();
});

const ROUNDS = rounds(2, 12);
const SIZE = SOAK
  ? { traces: 1_300, transcripts: [300 * 1024, 20_000, 2 * 1024 * 1024, 5_000, 700 * 1024] }
  : { traces: 600, transcripts: [300 * 1024, 20_000, 600 * 1024, 5_000] };

interface World {
  service: ServiceHandle;
  token: string;
  a: Machine;
  b: Machine;
}

async function world(backend: 'sqlite' | 'postgres'): Promise<World> {
  // Log level info: every request is logged, which is how a kill point is counted.
  const service = await spawnService({ backend, logLevel: 'info' });
  await service.createProject('acme', 'web');
  const token = await service.createToken({ org: 'acme', project: 'web', name: 'reliability' });
  const remoteUrl = `${service.url}/acme/web`;
  const a = await machine({ remoteUrl, token, env: FAST_RETRY_ENV });
  const b = await machine({ cloneOf: a.repo, remoteUrl, token, env: FAST_RETRY_ENV });
  return { service, token, a, b };
}

/** Starts `args` on `m`, SIGKILLs the service once it has seen a random number of the run's requests, restarts it. */
async function killServiceDuring(w: World, m: Machine, args: string[], maxRequest: number, d: Dice, label: string): Promise<void> {
  const from = requestsSeen(w.service);
  const at = d.int(1, maxRequest);
  const delay = d.int(0, 15);
  const running = spawnTracer(args, { cwd: m.repo, home: m.home, env: FAST_RETRY_ENV });
  const midRun = await untilRequests(w.service, from, at, running);
  await pause(delay);
  await w.service.kill();
  const interrupted = await running.result;
  d.note(
    `${label}: SIGKILL service at request ${at} + ${delay} ms (${midRun ? 'mid-run' : 'after the run'}); ${args.join(' ')} exited ${interrupted.code}`,
  );
  // The interrupted run fails with a clear, categorized error, never a crash.
  assert.not.match(interrupted.stderr, 'internal_error', `${label}: ${interrupted.stderr}`);
  if (interrupted.code !== 0)
    assert.match(interrupted.stderr, /\((network_error|timeout|service_unavailable)\)/, `${label}: ${interrupted.stderr}`);
  await w.service.restart();
  const again = await m.run(args, { env: FAST_RETRY_ENV });
  assert.is(again.code, 0, `${label}: re-run after restart: ${again.stderr}`);
}

function killRounds(backend: 'sqlite' | 'postgres', fallbackSeed: number) {
  test(`${backend}: SIGKILL the service mid-push and mid-pull, restart, re-run: nothing lost, nothing twice`, async () => {
    const d = dice(`service-killed/${backend}`, fallbackSeed);
    await replayable(d, async () => {
      const w = await world(backend);
      for (let round = 1; round <= ROUNDS; round++) {
        seed(w.a, d, `${backend}-r${round}`, SIZE);
        await killServiceDuring(w, w.a, ['push'], 13, d, `round ${round} push`);
        await assertServerHoldsExactly(w.service, w.token, w.a, `round ${round} after push`);
        assertManifestAgrees(w.a, 'origin', `round ${round} after push`);
        assertIntact(w.a, `round ${round} pusher`);

        await killServiceDuring(w, w.b, ['pull'], 8, d, `round ${round} pull`);
        assertSameStores(w.a, w.b, `round ${round} after pull`);
        assertManifestAgrees(w.b, 'origin', `round ${round} puller`);
        assertIntact(w.b, `round ${round} puller`);
      }
      const clean = await w.a.run(['push', '--json']);
      assert.is(JSON.parse(clean.stdout).push.totals.sent, 0, 'a push after the rounds has nothing left to send');
      // A machine that never saw a fault reads the same thing back.
      const c = await machine({ cloneOf: w.a.repo, remoteUrl: `${w.service.url}/acme/web`, token: w.token });
      const pulled = await c.run(['pull']);
      assert.is(pulled.code, 0, pulled.stderr);
      assertSameStores(w.a, c, 'fresh machine');
      await w.service.stop();
    });
  });
}

killRounds('sqlite', 0x5eed_0601);

if (await postgresAvailable()) {
  killRounds('postgres', 0x5eed_0602);
} else if (process.env.TRACER_TEST_REQUIRE_POSTGRES === '1') {
  test('PostgreSQL is required (TRACER_TEST_REQUIRE_POSTGRES=1)', () => {
    throw new Error(`No PostgreSQL answers at ${TEST_POSTGRES_URL}; start one or set TRACER_TEST_POSTGRES_URL.`);
  });
} else {
  console.log(
    `\n  SKIPPED: service-killed on PostgreSQL: no PostgreSQL answers at ${TEST_POSTGRES_URL} (TRACER_TEST_REQUIRE_POSTGRES=1 fails instead)\n`,
  );
}

test.run();
