import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/cli.js';
import { onPostgres, startService, stopAllServices, type ServiceHandle } from '../helpers/service.js';
import { addConversation, addLedger, addSummary, addTrace, machine, readRows, transcript, type Machine } from '../helpers/sync-fixtures.js';
import { filesHolding, tokenWithRole, signIn } from '../privacy/support.js';

/**
 * Issue 31, "Must hold": three machines and one service. A pushes a
 * conversation, B and C pull it; A forgets it; B pulls (its copy is gone); C,
 * offline during the forget, pushes with the old copy still in its store
 * (nothing reappears on the service or in the team view, C's copy is dropped, C
 * is told); a fourth clone pulling from scratch never sees it.
 */
const MARKER = 'PASSWORD-hunter2-do-not-keep';

function forgetSuite(backend: 'sqlite' | 'postgres') {
  const test = suite(`forget across machines (${backend})`);
  test.after(async () => {
    await stopAllServices();
    cleanup();
  });

  test('a forgotten conversation leaves every machine, the service and the team view, and never comes back', async () => {
    const service = await startService({ backend });
    await service.createProject('acme', 'web');
    const remoteUrl = `${service.url}/acme/web`;
    const admin = await tokenWithRole(service, { org: 'acme', project: 'web', name: 'ada', role: 'admin' });
    const reader = await tokenWithRole(service, { org: 'acme', project: 'web', name: 'bob', role: 'read' });
    const a = await machine({ remoteUrl, token: admin });
    const b = await machine({ cloneOf: a.repo, remoteUrl, token: reader });
    const c = await machine({ cloneOf: a.repo, remoteUrl, token: reader });

    const small = Buffer.from(`{"role":"user","text":"${MARKER}"}\n`);
    const large = Buffer.concat([Buffer.from(`{"text":"${MARKER}"}\n`), transcript(300 * 1024, 'forget-large')]);
    const forgotten = addConversation(a, 'conv-x', small);
    const forgottenLarge = addConversation(a, 'conv-x', large);
    addSummary(a, { conversation_id: 'conv-x', summary: `summary with ${MARKER}` });
    const trace = addTrace(a, { conversation_id: 'conv-x', agent: 'claude-code' });
    addLedger(a, [trace.id]);
    addConversation(a, 'conv-keep', Buffer.from('kept transcript\n'));
    addSummary(a, { conversation_id: 'conv-keep', summary: 'kept summary' });

    const pushed = await a.run(['push']);
    assert.is(pushed.code, 0, pushed.stderr);
    for (const m of [b, c]) {
      const pulled = await m.run(['pull']);
      assert.is(pulled.code, 0, pulled.stderr);
      assert.ok(holds(m, forgotten.sha), 'the clone holds the transcript before the forget');
    }

    const refused = await b.run(['forget', '--conversation', 'conv-x', '--yes']);
    assert.is.not(refused.code, 0, 'a read token cannot forget');
    assert.match(refused.stderr, /role_forbids/);
    assert.ok(holds(b, forgotten.sha), 'a refused forget changes nothing');

    const dry = await a.run(['forget', '--conversation', 'conv-x', '--dry-run']);
    assert.is(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /Would forget/);
    assert.ok(holds(a, forgotten.sha), '--dry-run changes nothing');

    const forget = await a.run(['forget', '--conversation', 'conv-x', '--yes']);
    assert.is(forget.code, 0, forget.stderr);
    assert.match(forget.stdout, /Forgot on remote "origin"/);
    assertGone(a, [forgotten.sha, forgottenLarge.sha], 'A');
    assert.ok(
      readRows(join(a.dir, 'traces.jsonl')).some((row) => row.id === trace.id),
      'the trace rows stay without --with-traces',
    );
    await assertServiceForgot(service, reader, [forgotten.sha, forgottenLarge.sha]);

    const pulled = await b.run(['pull']);
    assert.is(pulled.code, 0, pulled.stderr);
    assert.match(pulled.stderr, /forgotten_on_remote/);
    assertGone(b, [forgotten.sha, forgottenLarge.sha], 'B');

    // C was offline: its store still holds everything, and its manifest is lost too, so it sends it all again.
    assert.ok(holds(c, forgotten.sha));
    rmSync(join(c.dir, 'sync-state.json'), { force: true });
    rmSync(join(c.dir, 'sync-state.head.json'), { force: true });
    const cPush = await c.run(['push']);
    assert.is(cPush.code, 0, cPush.stderr);
    assert.match(cPush.stderr, /forgotten_on_remote/, 'C is told');
    assertGone(c, [forgotten.sha, forgottenLarge.sha], 'C');
    await assertServiceForgot(service, reader, [forgotten.sha, forgottenLarge.sha]);

    const d = await machine({ cloneOf: a.repo, remoteUrl, token: reader });
    const fresh = await d.run(['pull']);
    assert.is(fresh.code, 0, fresh.stderr);
    assertGone(d, [forgotten.sha, forgottenLarge.sha], 'D');
    assert.ok(
      readRows(join(d.dir, 'conversations.jsonl')).some((row) => row.conversation_id === 'conv-keep'),
      'the rest is still pulled',
    );

    if (backend === 'sqlite') {
      await service.stop();
      assert.equal(filesHolding(service.dataDir, MARKER), [], 'no byte of it left in the database, its WAL or the blob folder');
    }
  });

  test('bad input changes nothing: an unknown id, a date that is not one, no remote', async () => {
    const service = await startService({ backend });
    await service.createProject('acme', 'api');
    const admin = await tokenWithRole(service, { org: 'acme', project: 'api', name: 'ada', role: 'admin' });
    const a = await machine({ remoteUrl: `${service.url}/acme/api`, token: admin });
    const kept = addConversation(a, 'conv-1', Buffer.from('hello\n'));
    for (const [args, code] of [
      [['forget', '--conversation', 'no-such', '--yes'], 'unknown_conversation'],
      [['forget', '--before', 'last tuesday', '--yes'], 'invalid_date'],
      // A day the calendar lacks is no date: Date.parse would take it as December 1st.
      [['forget', '--before', '2026-11-31', '--yes'], 'invalid_date'],
      [['forget', '--before', '2026-02-29T00:00:00Z', '--yes'], 'invalid_date'],
      [['forget', '--yes'], 'nothing_selected'],
      [['forget', '--conversation', 'conv-1'], 'confirmation_required'],
    ] as const) {
      const result = await a.run(args);
      assert.is.not(result.code, 0, args.join(' '));
      assert.match(result.stderr, new RegExp(`\\(${code}\\)`), result.stderr);
      assert.is(result.stderr.trim().split('\n').length, 1, 'one sentence');
    }
    const lonely = await machine();
    addConversation(lonely, 'conv-1', Buffer.from('hello\n'));
    const noRemote = await lonely.run(['forget', '--conversation', 'conv-1', '--yes']);
    assert.match(noRemote.stderr, /\(remote_required\)/);
    assert.ok(holds(a, kept.sha) && holds(lonely, kept.sha), 'nothing was removed');
    const local = await lonely.run(['forget', '--conversation', 'conv-1', '--local-only', '--yes']);
    assert.is(local.code, 0, local.stderr);
    assertGone(lonely, [kept.sha], 'local only');
  });
  return test;
}

function holds(m: Machine, sha: string): boolean {
  return existsSync(join(m.dir, 'conversations', sha.slice(0, 2), sha));
}

function assertGone(m: Machine, shas: string[], who: string): void {
  for (const sha of shas) assert.not.ok(holds(m, sha), `${who} still holds the bytes ${sha}`);
  const conversations = readRows(join(m.dir, 'conversations.jsonl')).filter((row) => row.conversation_id === 'conv-x');
  assert.equal(conversations, [], `${who} still has snapshot rows`);
  const summaries = readRows(join(m.dir, 'session-summaries.jsonl')).filter((row) => row.conversation_id === 'conv-x');
  assert.equal(summaries, [], `${who} still has the summary`);
  const indexPath = join(m.dir, 'conversations', '_index.json');
  const index = existsSync(indexPath) ? JSON.parse(readFileSync(indexPath, 'utf8')) : {};
  assert.is(index?.['conv-x'], undefined, `${who}'s index still names it`);
  assert.equal(filesHolding(m.dir, MARKER), [], `${who} holds the text somewhere`);
}

async function assertServiceForgot(service: ServiceHandle, token: string, shas: string[]): Promise<void> {
  const headers = { authorization: `Bearer ${token}`, 'x-tracer-org': 'acme', 'x-tracer-project': 'web' };
  for (const family of ['conversations', 'summaries']) {
    const page = (await (await fetch(`${service.url}/api/v1/sync/${family}?limit=1000`, { headers })).json()) as {
      items: Array<Record<string, unknown>>;
    };
    assert.equal(
      page.items.filter((item) => item.conversation_id === 'conv-x'),
      [],
      `the service still serves ${family} of conv-x`,
    );
  }
  for (const sha of shas) assert.is((await fetch(`${service.url}/api/v1/blobs/${sha}`, { method: 'HEAD', headers })).status, 404);
  // The team view: no transcript and no summary of it.
  const cookie = await signIn(service.url, token);
  const session = await fetch(`${service.url}/ui/api/p/acme/web/sessions/conv-x`, { headers: { cookie } });
  if (session.status === 200) {
    const detail = (await session.json()) as { summary: string | null; has_transcript: boolean };
    assert.is(detail.summary, null);
    assert.is(detail.has_transcript, false);
  } else assert.is(session.status, 404);
  assert.is((await fetch(`${service.url}/ui/api/p/acme/web/sessions/conv-x/transcript`, { headers: { cookie } })).status, 404);
}

forgetSuite('sqlite').run();
await onPostgres('forget across machines on PostgreSQL', () => forgetSuite('postgres').run());
