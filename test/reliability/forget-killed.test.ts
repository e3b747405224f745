import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/cli.js';
import { onPostgres, spawnService, stopAllServices, type ServiceHandle } from '../helpers/service.js';
import { addConversation, addSummary, machine, readRows, transcript, type Machine } from '../helpers/sync-fixtures.js';
import { clientFor, type Client } from '../server/http.js';
import { tokenWithRole } from '../privacy/support.js';
import { dice, FAST_RETRY_ENV, pause, replayable, rounds, spawnTracer, type Dice } from './support/faults.js';
import { assertIntact } from './support/stores.js';

/**
 * Issue 31, "Must hold": the service and the client killed at random points
 * during forget and retention. Whatever the point: no state where removed
 * content is served again, no half-removed row that breaks a later pull, and
 * running the forget (or retention) again finishes the job.
 */
const ROUNDS = rounds(1, 8);
const EARLY = 200; // conversations in January 2024: what the forget takes
const LATE = 200; // in March 2024: what retention takes

interface World {
  service: ServiceHandle;
  admin: string;
  reader: string;
  a: Machine;
}

async function world(backend: 'sqlite' | 'postgres'): Promise<World> {
  const service = await spawnService({ backend, logLevel: 'warn' });
  await service.createProject('acme', 'web');
  const admin = await tokenWithRole(service, { org: 'acme', project: 'web', name: 'ada', role: 'admin' });
  const reader = await tokenWithRole(service, { org: 'acme', project: 'web', name: 'bob', role: 'read' });
  const a = await machine({ remoteUrl: `${service.url}/acme/web`, token: admin, env: FAST_RETRY_ENV });
  for (let i = 0; i < EARLY + LATE; i++) {
    const month = i < EARLY ? '01' : '03';
    const ts = `2024-${month}-${String((i % 27) + 1).padStart(2, '0')}T10:00:00.000Z`;
    // A few large ones take the blob path, whose bytes are removed separately from their rows.
    const bytes = i % 97 === 0 ? transcript(300 * 1024, `big-${i}`) : Buffer.from(`transcript ${i}\n`);
    addConversation(a, `conv-${i}`, bytes, { ts });
    addSummary(a, { conversation_id: `conv-${i}`, ts, summary: `summary ${i}` });
  }
  const pushed = await a.run(['push']);
  assert.is(pushed.code, 0, pushed.stderr);
  return { service, admin, reader, a };
}

/** The service's tombstones, as `<family>:<identity>`. */
async function tombstonesOf(reader: Client, context: string): Promise<Set<string>> {
  const stones = new Set<string>();
  for (let after = ''; ;) {
    const page = await reader.get(`/api/v1/tombstones?limit=1000${after ? `&after=${after}` : ''}`);
    assert.is(page.status, 200, `${context}: ${page.text}`);
    for (const stone of page.json.items) stones.add(`${stone.family}:${JSON.stringify(stone.identity)}`);
    after = page.json.next_cursor;
    if (!page.json.has_more) break;
  }
  return stones;
}

/** Nothing served is tombstoned, every served transcript's bytes come, and a fresh clone pulls cleanly. */
async function assertConsistent(w: World, context: string): Promise<Set<string>> {
  const reader = clientFor(w.service, w.reader, 'acme', 'web');
  const stones = await tombstonesOf(reader, context);
  const served = new Set<string>();
  for (const row of await reader.pullAll('conversations')) {
    const key = `conversations:${JSON.stringify({ conversation_id: row.conversation_id, content_sha256: row.content_sha256 })}`;
    assert.not.ok(stones.has(key), `${context}: ${row.conversation_id} is served but was forgotten`);
    if (row.content_base64 === undefined) {
      const bytes = await reader.get(`/api/v1/blobs/${row.content_sha256}`);
      // A killed client's forget goes on in the service and may take the row after the pull served it: its
      // bytes go in the same transaction as its row, which leaves a tombstone. Bytes gone from a row that no
      // tombstone names is the half-removed row this must catch.
      if (bytes.status === 404 && (await tombstonesOf(reader, context)).has(key)) continue;
      assert.is(bytes.status, 200, `${context}: ${row.conversation_id} has no bytes`);
    }
    served.add(String(row.conversation_id));
  }
  for (const row of await reader.pullAll('summaries'))
    assert.not.ok(stones.has(`summaries:${JSON.stringify({ id: row.id })}`), `${context}: a forgotten summary is served`);
  const fresh = await machine({ remoteUrl: `${w.service.url}/acme/web`, token: w.reader, env: FAST_RETRY_ENV });
  const pulled = await fresh.run(['pull']);
  assert.is(pulled.code, 0, `${context}: a fresh pull fails: ${pulled.stderr}`);
  assertIntact(fresh, `${context}, fresh clone`);
  for (const row of readRows(join(fresh.dir, 'conversations.jsonl'))) {
    const sha = String(row.content_sha256);
    assert.ok(existsSync(join(fresh.dir, 'conversations', sha.slice(0, 2), sha)), `${context}: a pulled row has no bytes`);
  }
  return served;
}

function early(served: Set<string>): string[] {
  return [...served].filter((id) => Number(id.slice(5)) < EARLY);
}

function killedSuite(backend: 'sqlite' | 'postgres') {
  const test = suite(`forget and retention killed at random points (${backend})`);
  test.after(async () => {
    await stopAllServices();
    cleanup();
  });

  test('service killed during a forget, then during retention', async () => {
    const d = dice(`forget-service-killed-${backend}`, 0x31_f0_06);
    await replayable(d, async () => {
      for (let round = 1; round <= ROUNDS; round++) {
        const w = await world(backend);
        await killService(
          w,
          d,
          `round ${round} forget`,
          () => spawnTracer(['forget', '--before', '2024-02-01', '--yes'], { cwd: w.a.repo, home: w.a.home, env: FAST_RETRY_ENV }).result,
        );
        await assertConsistent(w, `round ${round} after the killed forget`);
        const again = await w.a.run(['forget', '--before', '2024-02-01', '--yes']);
        assert.is(again.code, 0, again.stderr);
        assert.equal(early(await assertConsistent(w, `round ${round} after the forget ran again`)), []);

        const admin = clientFor(w.service, w.admin, 'acme', 'web');
        const policy = await fetch(`${w.service.url}/api/v1/retention`, {
          method: 'PUT',
          headers: { ...admin.headers(), 'content-type': 'application/json' },
          body: JSON.stringify({ retain: { conversations: '1d', summaries: '1d' } }),
        });
        assert.is(policy.status, 200);
        await killService(w, d, `round ${round} retention`, () =>
          admin.post('/api/v1/retention/run', '{}', 'application/json').catch(() => undefined),
        );
        await assertConsistent(w, `round ${round} after the killed retention run`);
        const run = await admin.post('/api/v1/retention/run', '{}', 'application/json');
        assert.is(run.status, 200, run.text);
        assert.equal([...(await assertConsistent(w, `round ${round} after retention ran again`))], []);
        // The machine that still holds the late half pushes: nothing comes back.
        const push = await w.a.run(['sync']);
        assert.is(push.code, 0, push.stderr);
        assert.equal([...(await assertConsistent(w, `round ${round} after A synced`))], []);
        await w.service.stop();
      }
    });
  });

  test('client killed during a forget: its store stays whole, and the next run finishes the forget', async () => {
    const d = dice(`forget-client-killed-${backend}`, 0x31_c1_1e);
    await replayable(d, async () => {
      for (let round = 1; round <= ROUNDS; round++) {
        const w = await world(backend);
        const running = spawnTracer(['forget', '--before', '2024-02-01', '--yes'], { cwd: w.a.repo, home: w.a.home, env: FAST_RETRY_ENV });
        const at = d.int(150, 2500);
        d.note(`round ${round}: client killed ${at} ms into the forget`);
        await pause(at);
        const killed = await running.kill();
        d.note(`round ${round}: the forget ${killed.signal ? 'was killed' : `had ended with ${killed.code}`}`);
        assertIntact(w.a, `round ${round} after the kill`);
        await assertConsistent(w, `round ${round} service after the client was killed`);
        // The next pull finishes whatever the forget had started here.
        const pulled = await w.a.run(['pull']);
        assert.is(pulled.code, 0, pulled.stderr);
        assertIntact(w.a, `round ${round} after the pull`);
        const again = await w.a.run(['forget', '--before', '2024-02-01', '--yes']);
        assert.is(again.code, 0, again.stderr);
        const left = readRows(join(w.a.dir, 'conversations.jsonl')).filter((row) => Number(String(row.conversation_id).slice(5)) < EARLY);
        assert.equal(left, [], `round ${round}: A still holds forgotten snapshots`);
        assert.equal(early(await assertConsistent(w, `round ${round} after the forget ran again`)), []);
        await w.service.stop();
      }
    });
  });
  return test;
}

/** Starts `work`, SIGKILLs the service at a random moment, restarts it on the same data, and lets `work` end. */
async function killService(w: World, d: Dice, label: string, work: () => Promise<unknown>): Promise<void> {
  const at = d.int(50, 1500);
  d.note(`${label}: service killed ${at} ms in`);
  const running = work();
  await pause(at);
  await w.service.kill();
  await w.service.restart();
  await running;
}

killedSuite('sqlite').run();
await onPostgres('forget and retention killed on PostgreSQL', () => killedSuite('postgres').run());
