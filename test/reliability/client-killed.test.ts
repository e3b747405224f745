import { appendFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/cli.js';
import { spawnService, stopAllServices, type ServiceHandle } from '../helpers/service.js';
import { addConversation, addLedger, addTrace, machine, transcript, type Machine } from '../helpers/sync-fixtures.js';
import { dice, pause, replayable, requestsSeen, rounds, SOAK, spawnTracer, untilRequests, type Dice } from './support/faults.js';
import { assertIntact, assertManifestAgrees, assertSameStores, assertServerHoldsExactly, localKeys, seed } from './support/stores.js';

/**
 * Issue 6, "Client killed": `tracer push` and `tracer pull` are SIGKILLed at a
 * seeded random point of their run (counted in requests the service has seen,
 * plus a few milliseconds). Every local file must still be usable (state files
 * parse, JSONL lines parse but for a torn last one, cache files hold the bytes
 * their names promise) and the next run converges. A torn JSONL line, what a
 * crash mid-append leaves, is skipped with a warning and never spreads.
 */
async function pushAll(m: Machine): Promise<void> {
  const result = await m.run(['push']);
  assert.is(result.code, 0, result.stderr);
}

test.after(async () => {
  await stopAllServices();
  cleanup();
});

const ROUNDS = rounds(3, 15);
const SIZE = SOAK
  ? { traces: 1_300, transcripts: [300 * 1024, 20_000, 2 * 1024 * 1024, 5_000, 700 * 1024] }
  : { traces: 600, transcripts: [300 * 1024, 20_000, 600 * 1024, 5_000] };

let service: ServiceHandle;
let token: string;
let a: Machine;
let b: Machine;

test.before(async () => {
  service = await spawnService({ logLevel: 'info' });
  await service.createProject('acme', 'web');
  token = await service.createToken({ org: 'acme', project: 'web', name: 'reliability' });
  a = await machine({ remoteUrl: `${service.url}/acme/web`, token });
  b = await machine({ cloneOf: a.repo, remoteUrl: `${service.url}/acme/web`, token });
});

/** Lines torn by earlier kills, per machine: they stay in place, ended by the next append. */
const tears = new Map<Machine, string[]>();

/** Starts `args` on `m` and SIGKILLs it once the service has seen a random number of its requests. */
async function killClientDuring(m: Machine, args: string[], maxRequest: number, d: Dice, label: string): Promise<void> {
  const from = requestsSeen(service);
  const at = d.int(1, maxRequest);
  const delay = d.int(0, 20);
  const running = spawnTracer(args, { cwd: m.repo, home: m.home });
  const midRun = await untilRequests(service, from, at, running);
  await pause(delay);
  const killed = await running.kill();
  d.note(
    `${label}: SIGKILL client at request ${at} + ${delay} ms (${midRun && killed.signal === 'SIGKILL' ? 'mid-run' : 'after the run'})`,
  );
  const earlier = tears.get(m) ?? [];
  const { torn, leftovers } = assertIntact(m, `${label}, right after the kill`, earlier);
  tears.set(m, [...earlier, ...torn]);
  d.note(`${label}: ${torn.length} torn line(s), leftovers ${leftovers.length ? leftovers.join(', ') : 'none'}`);
  const again = await m.run(args);
  assert.is(again.code, 0, `${label}: the next run: ${again.stderr}`);
  assert.is(
    assertIntact(m, `${label}, after the next run`, tears.get(m)).leftovers.length,
    0,
    `${label}: the next run leaves no temporary files behind`,
  );
}

test('SIGKILL the client mid-push and mid-pull: no local file is corrupt and the next run converges', async () => {
  const d = dice('client-killed', 0x5eed_0603);
  await replayable(d, async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      seed(a, d, `ck-r${round}`, SIZE);
      await killClientDuring(a, ['push'], 13, d, `round ${round} push`);
      await assertServerHoldsExactly(service, token, a, `round ${round} after push`);
      assertManifestAgrees(a, 'origin', `round ${round} pusher`);

      await killClientDuring(b, ['pull'], 8, d, `round ${round} pull`);
      assertSameStores(a, b, `round ${round} after pull`);
      assertManifestAgrees(b, 'origin', `round ${round} puller`);
    }
  });
});

test('a torn last JSONL line is skipped with a warning, left in place, and never swallows the next record', async () => {
  const tornTrace = '{"id":"0000000000000000000000000000000000000000000000000000000000000000","ts":"2024-05-';
  const tornRow = '{"conversation_id":"torn","content_sha256":"ab';
  appendFileSync(join(b.dir, 'traces.jsonl'), tornTrace);
  appendFileSync(join(b.dir, 'conversations.jsonl'), tornRow);
  const { torn } = assertIntact(b, 'torn by hand', tears.get(b));
  assert.is(torn.length, 2);
  tears.set(b, [...(tears.get(b) ?? []), ...torn]);

  const trace = addTrace(a, { tool: 'after-the-tear' });
  addLedger(a, [trace.id]);
  await pushAll(a);

  const pulled = await b.run(['pull']);
  assert.is(pulled.code, 0, pulled.stderr);
  assert.match(pulled.stderr, '(torn_line)');
  const traces = readFileSync(join(b.dir, 'traces.jsonl'), 'utf8');
  assert.ok(traces.includes(`${tornTrace}\n`), 'the torn bytes stay where they were, now ended by a newline');
  assert.ok(localKeys(b).traces.includes(trace.id), 'the record appended after the tear is whole');

  // Now a terminated bad line in the middle: still skipped, still reported, the rest still syncs.
  const pushed = await b.run(['push', '--json']);
  assert.is(pushed.code, 0, pushed.stderr);
  assert.ok(JSON.parse(pushed.stdout).warnings.some((warning: { code: string }) => warning.code === 'unreadable_line'));
  await assertServerHoldsExactly(service, token, a, 'after the tear');
  const again = await b.run(['pull']);
  assert.is(again.code, 0, again.stderr);
});

test('the states a kill between two writes leaves are repaired by the next run (deterministic)', async () => {
  const older = addConversation(a, 'repaired', transcript(1_000, 'repaired-v1'), { ts: '2030-01-01T00:00:00.000Z' });
  const newer = addConversation(a, 'repaired', transcript(1_000, 'repaired-v2'), { ts: '2030-01-02T00:00:00.000Z' });
  const refetched = addConversation(a, 'refetched', transcript(1_000, 'refetched'), { ts: '2030-01-03T00:00:00.000Z' });
  await pushAll(a);
  assert.is((await b.run(['pull'])).code, 0, 'pull');
  // Killed after the rows were appended, before _index.json was rewritten: the index still names the older snapshot.
  const indexPath = join(b.dir, 'conversations', '_index.json');
  const index = JSON.parse(readFileSync(indexPath, 'utf8'));
  assert.is(index.repaired, newer.sha);
  writeFileSync(indexPath, JSON.stringify({ ...index, repaired: older.sha }));
  // Killed mid-download of one blob and mid-write of sync-state.json: temp files of a process that no longer runs,
  // the row not stored, the cursor not saved.
  const dead = 2 ** 22 + 12_345; // above Linux's default pid_max, so never a live process
  const stateLeftover = join(b.dir, `sync-state.json.tmp-${dead}-0badc0de`);
  writeFileSync(stateLeftover, '{"remotes": {');
  const blobFile = join(b.dir, 'conversations', refetched.sha.slice(0, 2), refetched.sha);
  rmSync(blobFile);
  writeFileSync(`${blobFile}.tmp-${dead}-0badc0de`, 'partial');
  const rows = readFileSync(join(b.dir, 'conversations.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => !line.includes(refetched.sha));
  writeFileSync(join(b.dir, 'conversations.jsonl'), rows.join('\n'));
  const state = JSON.parse(readFileSync(join(b.dir, 'sync-state.json'), 'utf8'));
  delete state.remotes.origin.cursors.conversations;
  writeFileSync(join(b.dir, 'sync-state.json'), JSON.stringify(state));

  const pulled = await b.run(['pull']);
  assert.is(pulled.code, 0, pulled.stderr);
  assert.is(JSON.parse(readFileSync(indexPath, 'utf8')).repaired, newer.sha, '_index.json points at the freshest snapshot again');
  assert.not.ok(existsSync(stateLeftover), 'the abandoned state temp file is gone');
  assert.not.ok(existsSync(`${blobFile}.tmp-${dead}-0badc0de`), 'the abandoned blob temp file is gone');
  assert.is(assertIntact(b, 'repaired', tears.get(b)).leftovers.length, 0);
  assertSameStores(a, b, 'repaired');
});

test.run();
