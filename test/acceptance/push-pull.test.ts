import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/cli.js';
import { startService, stopAllServices, type ServiceHandle } from '../helpers/service.js';
import {
  addCommitLink,
  addConversation,
  addLedger,
  addSummary,
  addTrace,
  machine,
  readConversation,
  readRows,
  storeSnapshot,
  syncState,
  transcript,
  type Machine,
} from '../helpers/sync-fixtures.js';

/** Two machines (two TRACER_HOMEs, two clones) and one real `tracer serve`, driven through the built CLI. */
test.after(async () => {
  await stopAllServices();
  cleanup();
});

let service: ServiceHandle;
let a: Machine;
let b: Machine;

test.before(async () => {
  service = await startService();
  await service.createProject('acme', 'web');
  const token = await service.createToken({ org: 'acme', project: 'web', name: 'laptop' });
  a = await machine({ remoteUrl: `${service.url}/acme/web`, token });
  b = await machine({ cloneOf: a.repo, remoteUrl: `${service.url}/acme/web`, token });
});

const json = (result: { stdout: string }) => JSON.parse(result.stdout);

test('every family, transcripts of 300 KiB and 5 MiB included, ends byte-identical on both machines', async () => {
  const attributed = addTrace(a, { conversation_id: 'conv-small' });
  const second = addTrace(a, { conversation_id: 'conv-big' });
  addLedger(a, [attributed.id, second.id]);
  addCommitLink(a);
  addSummary(a);
  addConversation(a, 'conv-small', transcript(10_000, 'small'));
  addConversation(a, 'conv-300k', transcript(300 * 1024, '300k'));
  addConversation(a, 'conv-big', transcript(5 * 1024 * 1024, '5m'));

  const pushed = await a.run(['push']);
  assert.is(pushed.code, 0, pushed.stderr);
  assert.match(pushed.stdout, 'traces: 2 pushed');
  assert.match(pushed.stdout, 'conversations: 3 pushed');
  assert.match(pushed.stdout, '2 blobs uploaded');
  assert.is(pushed.stderr, '');

  const pulled = await b.run(['pull']);
  assert.is(pulled.code, 0, pulled.stderr);
  assert.match(pulled.stdout, 'conversations: 3 received, 3 added, 2 blobs fetched');
  assert.equal(storeSnapshot(b), storeSnapshot(a));
  for (const id of ['conv-small', 'conv-300k', 'conv-big']) assert.ok(readConversation(b, id).equals(readConversation(a, id)), id);

  // Back the other way: what B records reaches A through sync (push, then pull).
  const fromB = addTrace(b);
  addLedger(b, [fromB.id]);
  addConversation(b, 'conv-small', transcript(20_000, 'small-v2'), { ts: '2024-06-01T00:00:00.000Z' });
  const syncB = await b.run(['sync']);
  assert.is(syncB.code, 0, syncB.stderr);
  const syncA = await a.run(['sync']);
  assert.is(syncA.code, 0, syncA.stderr);
  assert.equal(storeSnapshot(a), storeSnapshot(b));
  assert.ok(readConversation(a, 'conv-small').equals(transcript(20_000, 'small-v2')), 'the index keeps the freshest snapshot');
});

test('a second push on a clean state sends zero items; pulled rows count as synced', async () => {
  for (const m of [a, b]) {
    const again = await m.run(['push', '--json']);
    assert.is(again.code, 0, again.stderr);
    const result = json(again);
    assert.is(result.ok, true);
    assert.is(result.push.totals.sent, 0);
    assert.is(result.push.totals.pending, 0);
  }
  const state = syncState(a);
  for (const key of ['trace_ids', 'ledger_shas', 'commit_link_ids', 'conversation_keys', 'summary_ids', 'blob_shas'])
    assert.ok(state.remotes.origin.synced[key].length > 0, key);
  assert.ok(Object.keys(state.remotes.origin.cursors).length > 0);
});

test('deleting sync-state.json forces a re-scan: everything is sent again, nothing new is stored, nothing is lost', async () => {
  const before = storeSnapshot(a);
  rmSync(join(a.dir, 'sync-state.json'));
  const rescan = await a.run(['push', '--json']);
  assert.is(rescan.code, 0, rescan.stderr);
  const result = json(rescan).push;
  assert.ok(result.totals.sent > 0);
  assert.is(result.totals.inserted, 0);
  assert.is(result.totals.duplicates, result.totals.sent);
  const pull = json(await a.run(['pull', '--json'])).pull;
  assert.is(pull.totals.inserted, 0);
  assert.equal(storeSnapshot(a), before);
});

test('without --full unattributed traces wait (status counts them); --full sends them', async () => {
  const lonely = addTrace(a, { tool: 'lonely' });
  const status = await a.run(['status', '--json']);
  assert.is(status.code, 0, status.stderr);
  const origin = json(status).remotes[0];
  assert.is(origin.families.traces.unpushed, 1);
  assert.is(origin.families.traces.waiting_for_attribution, 1);
  assert.is(origin.waiting_for_attribution, 1);

  const held = json(await a.run(['push', '--json'])).push;
  assert.is(held.families.find((f: any) => f.family === 'traces').held.waiting_for_attribution, 1);
  assert.is(held.totals.sent, 0);
  assert.not.ok(syncState(a).remotes.origin.synced.trace_ids.includes(lonely.id));

  const full = json(await a.run(['push', '--full', '--json'])).push;
  assert.is(full.totals.sent, 1);
  assert.ok(syncState(a).remotes.origin.synced.trace_ids.includes(lonely.id));
  const after = await a.run(['status']);
  assert.match(after.stdout, 'everything pushed', after.stdout + after.stderr);
});

test('--dry-run sends no mutating request and writes nothing', async () => {
  assert.is((await b.run(['pull'])).code, 0, 'B catches up first');
  const trace = addTrace(a, { tool: 'dry' });
  addLedger(a, [trace.id]);
  const stateBefore = JSON.stringify(syncState(a));
  const dry = await a.run(['push', '--dry-run']);
  assert.is(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, 'traces: 1 to push');
  assert.match(dry.stdout, 'A push would send 2 items');
  assert.is(JSON.stringify(syncState(a)), stateBefore);
  const bBefore = storeSnapshot(b);
  const bState = JSON.stringify(syncState(b));
  const dryPull = await b.run(['pull', '--dry-run', '--json']);
  assert.is(dryPull.code, 0, dryPull.stderr);
  assert.is(json(dryPull).pull.totals.inserted, 0, 'the service got nothing from the dry push');
  await a.run(['push']);
  const wouldPull = json(await b.run(['pull', '--dry-run', '--json'])).pull;
  assert.is(wouldPull.totals.inserted, 2);
  assert.equal(storeSnapshot(b), bBefore);
  assert.is(JSON.stringify(syncState(b)), bState);
});

test('--only restricts the families; conversations and summaries follow traces', async () => {
  const trace = addTrace(a);
  const ledger = addLedger(a, [trace.id]);
  const link = addCommitLink(a);
  addSummary(a);
  const onlyLedgers = json(await a.run(['push', '--only', 'ledgers', '--json'])).push;
  const sent = (name: string, result: any) => result.families.find((f: any) => f.family === name);
  assert.is(sent('ledgers', onlyLedgers).sent, 1);
  assert.is(sent('traces', onlyLedgers).status, 'skipped');
  assert.is(sent('summaries', onlyLedgers).status, 'skipped');
  assert.ok(syncState(a).remotes.origin.synced.ledger_shas.includes(ledger.sha));
  const onlyTraces = json(await a.run(['push', '--only', 'traces', '--json'])).push;
  assert.is(sent('traces', onlyTraces).sent, 1, JSON.stringify(onlyTraces.families));
  assert.is(sent('summaries', onlyTraces).sent, 1);
  assert.is(sent('commit-links', onlyTraces).status, 'skipped');
  assert.not.ok(syncState(a).remotes.origin.synced.commit_link_ids.includes(link.id));
  const bad = await a.run(['push', '--only', 'conversations']);
  assert.is(bad.code, 2);
  assert.match(bad.stderr, 'traces, ledgers, commit-links');
});

test('--since bounds item timestamps, independent of the manifest; a bad value is a usage error', async () => {
  const old = addTrace(a, { ts: '2020-01-01T00:00:00.000Z' });
  const recent = addTrace(a, { ts: '2030-01-01T00:00:00.000Z' });
  const result = json(await a.run(['push', '--full', '--only', 'traces', '--since', '2029-12-31', '--json'])).push;
  const traces = result.families.find((f: any) => f.family === 'traces');
  assert.is(traces.sent, 1);
  assert.is(traces.before_since, 1);
  const synced = syncState(a).remotes.origin.synced.trace_ids;
  assert.ok(synced.includes(recent.id));
  assert.not.ok(synced.includes(old.id));
  for (const bad of ['yesterday', '2024-13-01', '2024-05-01T10:00:00']) {
    const refused = await a.run(['push', '--since', bad]);
    assert.is(refused.code, 2, bad);
    assert.match(refused.stderr, 'ISO-8601');
  }
  const pulled = json(await b.run(['pull', '--since', '2029-12-31', '--json'])).pull;
  assert.is(pulled.families.find((f: any) => f.family === 'traces').inserted, 1);
  assert.ok(readRows(join(b.dir, 'traces.jsonl')).some((row) => row.id === recent.id));
});

test('--quiet prints nothing on success and only the error line on failure', async () => {
  const quiet = await a.run(['push', '--quiet']);
  assert.is(quiet.code, 0, quiet.stderr);
  assert.is(quiet.stdout, '');
  assert.is(quiet.stderr, '');
  const failing = await a.run(['pull', '--quiet', '--remote', 'nowhere']);
  assert.is(failing.code, 2);
  assert.is(failing.stdout, '');
  assert.is(failing.stderr.trim().split('\n').length, 1);
});

test('sync accepts only --remote', async () => {
  const refused = await a.run(['sync', '--full']);
  assert.is(refused.code, 2);
  assert.match(refused.stderr, 'tracer push --full');
});

test.run();
