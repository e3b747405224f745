import pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, runTracer, tempDir } from '../helpers/cli.js';
import { freshPostgresSchema, onPostgres, spawnService, startService, stopAllServices, type ServiceHandle } from '../helpers/service.js';
import { withContentId } from '../../src/core/content-id.js';
import { clientFor, conversation } from '../server/http.js';
import { tokenWithRole, signIn } from './support.js';

/**
 * Issue 31, the audit log: who read, forgot or changed what, in a hash chain per
 * org that `tracer audit verify` checks; an entry edited or deleted in the
 * database is named. On PostgreSQL, several service processes append at once.
 */
const test = suite('audit log');
test.after(async () => {
  await stopAllServices();
  cleanup();
});

async function verify(service: ServiceHandle, org = 'acme') {
  return runTracer(['audit', 'verify', `${service.url}/${org}/web`], {
    cwd: tempDir(),
    home: tempDir(),
    env: { TRACER_ADMIN_SECRET: service.adminSecret },
  });
}

test('reads, forgets and token changes are audited, and the chain verifies until an entry is edited or removed (sqlite)', async () => {
  const service = await startService();
  await service.createProject('acme', 'web');
  const admin = await tokenWithRole(service, { org: 'acme', project: 'web', name: 'ada', role: 'admin' });
  const reader = clientFor(
    service,
    await tokenWithRole(service, { org: 'acme', project: 'web', name: 'bob', role: 'read' }),
    'acme',
    'web',
  );
  const bytes = Buffer.from('transcript text that the audit log must never hold\n');
  assert.is((await reader.push('conversations', [conversation(bytes, true, { conversation_id: 'conv-a' })])).status, 200);
  assert.is((await reader.pull('conversations')).status, 200);
  const forget = await clientFor(service, admin, 'acme', 'web').post(
    '/api/v1/forget',
    JSON.stringify({ conversation_ids: ['conv-a'] }),
    'application/json',
  );
  assert.is(forget.status, 200, forget.text);

  const listed = await runTracer(['audit', `${service.url}/acme/web`, '--json'], {
    cwd: tempDir(),
    home: tempDir(),
    env: { TRACER_ADMIN_SECRET: service.adminSecret },
  });
  assert.is(listed.code, 0, listed.stderr);
  const log = JSON.parse(listed.stdout);
  const actions = log.entries.map((entry: any) => entry.entry.action);
  assert.equal(actions, ['token.create', 'token.create', 'transcript.read', 'forget', 'forget.done']);
  const read = log.entries[2].entry;
  assert.equal(read.actor, { kind: 'token', token_name: 'bob', role: 'read', scope: 'project' });
  assert.equal(read.target.conversations, ['conv-a']);
  assert.not.match(listed.stdout, /must never hold/, 'never the content');

  const ok = await verify(service);
  assert.is(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /verifies: 5 entries/);

  // The secret covers every org: a project that is not registered is not found, not an empty log.
  const nowhere = await runTracer(['audit', `${service.url}/nosuch/web`], {
    cwd: tempDir(),
    home: tempDir(),
    env: { TRACER_ADMIN_SECRET: service.adminSecret },
  });
  assert.is.not(nowhere.code, 0);
  assert.match(nowhere.stderr, /\(project_not_found\)\n$/);

  // A read token cannot read the log, and a project admin token can read but not verify the org's chain.
  const asReader = await fetch(`${service.url}/api/v1/audit`, { headers: reader.headers() });
  assert.is(asReader.status, 403);
  assert.is(((await asReader.json()) as { code: string }).code, 'role_forbids');
  await service.stop();
  const Database = (await import('better-sqlite3')).default;
  const db = new Database(`${service.dataDir}/tracer.db`);
  db.prepare("UPDATE audit_log SET body = replace(body, 'bob', 'eve') WHERE n = 3").run();
  db.close();
  await service.restart();
  const edited = await verify(service);
  assert.is(edited.code, 7, edited.stdout);
  assert.match(edited.stderr, /Entry 3 of the audit log of org acme was changed/);
  assert.match(edited.stderr, /\(audit_chain_broken\)/);
});

test('summaries pulled, a team view search and a session page that shows a summary are reads, audited', async () => {
  const service = await startService();
  await service.createProject('acme', 'web');
  const token = await tokenWithRole(service, { org: 'acme', project: 'web', name: 'bob', role: 'read' });
  const reader = clientFor(service, token, 'acme', 'web');
  const bytes = Buffer.from(`${JSON.stringify({ type: 'user', message: { role: 'user', content: 'plan the wombat migration' } })}\n`);
  assert.is((await reader.push('conversations', [conversation(bytes, true, { conversation_id: 'conv-s' })])).status, 200);
  const summary = withContentId(
    {
      ts: '2024-05-01T12:00:00Z',
      conversation_url: 'claude-code://session/conv-s',
      conversation_id: 'conv-s',
      agent: 'claude-code',
      summary: 'Planned the wombat migration.',
    },
    'id',
  );
  assert.is((await reader.push('summaries', [summary])).status, 200);
  assert.is((await reader.pull('summaries')).status, 200);
  const cookie = await signIn(service.url, token);
  const api = async (path: string) =>
    (await (await fetch(`${service.url}/ui/api/p/acme/web${path}`, { headers: { cookie } })).json()) as any;
  // The team view takes pushed rows in the background: ask until the search and the session page have them.
  let hits: unknown[] = [];
  let detail: any;
  for (
    const until = Date.now() + 30_000;
    Date.now() < until && (hits.length === 0 || !detail?.summary);
    await new Promise((r) => setTimeout(r, 200))
  ) {
    hits = (await api('/search?q=wombat')).hits ?? [];
    detail = await api('/sessions/conv-s');
  }
  assert.ok(hits.length > 0 && detail?.summary, 'the team view took the rows in');
  const listed = await runTracer(['audit', `${service.url}/acme/web`, '--json'], {
    cwd: tempDir(),
    home: tempDir(),
    env: { TRACER_ADMIN_SECRET: service.adminSecret },
  });
  const reads = JSON.parse(listed.stdout)
    .entries.map((entry: any) => entry.entry)
    .filter((entry: any) => entry.action === 'transcript.read');
  const via = (name: string) => reads.filter((entry: any) => entry.target.via === name);
  assert.ok(
    via('pull').some((entry: any) => entry.target.family === 'summaries' && entry.target.conversations.includes('conv-s')),
    JSON.stringify(reads),
  );
  assert.ok(
    via('team view search').some((entry: any) => entry.target.conversations.includes('conv-s')),
    JSON.stringify(reads),
  );
  assert.ok(
    via('team view session summary').some((entry: any) => entry.target.conversations.includes('conv-s')),
    JSON.stringify(reads),
  );
  assert.not.match(listed.stdout, /wombat/, 'never the content');
  assert.is((await verify(service)).code, 0);
});

test('revoking a token stops it and its team view sessions, and is audited', async () => {
  const service = await startService();
  await service.createProject('acme', 'web');
  const token = await tokenWithRole(service, { org: 'acme', project: 'web', name: 'leaver', role: 'read' });
  const client = clientFor(service, token, 'acme', 'web');
  assert.is((await client.get('/api/v1/auth/whoami')).status, 200);
  const cookie = await signIn(service.url, token);
  assert.is((await fetch(`${service.url}/ui/api/projects`, { headers: { cookie } })).status, 200);
  const revoke = await fetch(`${service.url}/api/v1/admin/tokens/revoke`, {
    method: 'POST',
    headers: { authorization: `Bearer ${service.adminSecret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ org_slug: 'acme', project_slug: 'web', name: 'leaver' }),
  });
  assert.is(revoke.status, 200);
  assert.is(((await revoke.json()) as { revoked: number }).revoked, 1);
  assert.is((await client.get('/api/v1/auth/whoami')).status, 401);
  assert.is((await fetch(`${service.url}/ui/api/projects`, { headers: { cookie } })).status, 401);
  const listed = await runTracer(['audit', `${service.url}/acme/web`, '--json'], {
    cwd: tempDir(),
    home: tempDir(),
    env: { TRACER_ADMIN_SECRET: service.adminSecret },
  });
  const actions = JSON.parse(listed.stdout).entries.map((entry: any) => entry.entry.action);
  assert.equal(actions, ['token.create', 'ui.sign_in', 'token.revoke']);
  assert.is((await verify(service)).code, 0);
});

test('admin tokens read the log of their scope: an org admin verifies the chain, a project admin reads its project only', async () => {
  const service = await startService();
  await service.createProject('acme', 'web');
  await service.createProject('acme', 'api');
  const orgAdmin = await tokenWithRole(service, { org: 'acme', name: 'boss', role: 'admin' });
  const webAdmin = await tokenWithRole(service, { org: 'acme', project: 'web', name: 'web-boss', role: 'admin' });
  await tokenWithRole(service, { org: 'acme', project: 'api', name: 'api-dev', role: 'read' });
  const run = (args: string[], token: string) =>
    runTracer([...args, '--token-env', 'ACME_ADMIN'], { cwd: tempDir(), home: tempDir(), env: { ACME_ADMIN: token } });
  const asOrg = await run(['audit', `${service.url}/acme/web`, '--json'], orgAdmin);
  assert.is(asOrg.code, 0, asOrg.stderr);
  assert.is(JSON.parse(asOrg.stdout).entries.length, 3, 'the whole org');
  const verified = await run(['audit', 'verify', `${service.url}/acme/web`], orgAdmin);
  assert.is(verified.code, 0, verified.stderr);
  const asProject = await run(['audit', `${service.url}/acme/web`, '--json'], webAdmin);
  assert.equal(
    JSON.parse(asProject.stdout).entries.map((entry: any) => entry.entry.target.token_name),
    ['web-boss'],
    "the project's entries only",
  );
  const narrow = await run(['audit', 'verify', `${service.url}/acme/web`], webAdmin);
  assert.is.not(narrow.code, 0);
  assert.match(narrow.stderr, /\(audit_scope_too_narrow\)/);
  const none = await runTracer(['audit', `${service.url}/acme/web`], { cwd: tempDir(), home: tempDir() });
  assert.match(none.stderr, /\(admin_credentials_missing\)/);
});

/** The 10,000 entries in the soak run (npm run test:soak); npm test writes 2,000, a fifth of the CPU, through the same paths. */
const TOTAL = process.env.TRACER_SOAK === '1' ? 10_000 : 2_000;

async function postgresSuite() {
  const pgTest = suite('audit log on PostgreSQL, several processes');
  pgTest.after(async () => {
    await stopAllServices();
    cleanup();
  });
  pgTest(
    `${TOTAL.toLocaleString('en')} entries appended by three service processes at once form one chain; an edit or a deletion is named`,
    async () => {
      const databaseUrl = await freshPostgresSchema();
      const adminSecret = 'audit-secret-0123456789';
      const services: ServiceHandle[] = [];
      for (let i = 0; i < 3; i++) services.push(await spawnService({ backend: 'postgres', databaseUrl, adminSecret }));
      const first = services[0]!;
      await first.createProject('acme', 'web');
      const reader = await tokenWithRole(first, { org: 'acme', project: 'web', name: 'bob', role: 'read' });
      const admin = await tokenWithRole(first, { org: 'acme', project: 'web', name: 'ada', role: 'admin' });
      const small = conversation(Buffer.from('a small transcript\n'), true, { conversation_id: 'conv-read' });
      assert.is((await clientFor(first, reader, 'acme', 'web').push('conversations', [small])).status, 200);

      // A mixed workload: pulls of transcripts, blob reads, token creations and forgets, spread over the three processes.
      let next = 0;
      const worker = async () => {
        for (;;) {
          const i = next++;
          if (i >= TOTAL - 3) return;
          const service = services[i % services.length]!;
          const kind = i % 50;
          if (kind === 0) await tokenWithRole(service, { org: 'acme', project: 'web', name: `t${i}`, role: 'push' });
          else if (kind === 1) {
            const answer = await clientFor(service, admin, 'acme', 'web').post(
              '/api/v1/forget',
              JSON.stringify({ conversation_ids: ['conv-none'], dry_run: true }),
              'application/json',
            );
            assert.is(answer.status, 200);
            await clientFor(service, reader, 'acme', 'web').pull('conversations');
          } else {
            const page = await clientFor(service, reader, 'acme', 'web').pull('conversations');
            assert.is(page.status, 200, page.text);
          }
        }
      };
      await Promise.all(Array.from({ length: 16 }, worker));
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        const count = Number((await client.query("SELECT COUNT(*) AS n FROM audit_log WHERE org_slug = 'acme'")).rows[0].n);
        assert.ok(count >= TOTAL - 3, `${count} entries`);
        const ok = await verify(first);
        assert.is(ok.code, 0, ok.stderr);
        assert.match(ok.stdout, new RegExp(`verifies: ${count} entries`));

        // One entry deep in the chain is edited, then another removed.
        const changed = Math.floor(TOTAL * 0.4321);
        const removed = Math.floor(TOTAL * 0.0777);
        await client.query("UPDATE audit_log SET body = replace(body, 'bob', 'eve') WHERE org_slug = 'acme' AND n = $1", [changed]);
        const edited = await verify(first);
        assert.is(edited.code, 7);
        assert.match(edited.stderr, new RegExp(`Entry ${changed} of the audit log of org acme was changed`));
        await client.query("UPDATE audit_log SET body = replace(body, 'eve', 'bob') WHERE org_slug = 'acme' AND n = $1", [changed]);

        await client.query("DELETE FROM audit_log WHERE org_slug = 'acme' AND n = $1", [removed]);
        const deleted = await verify(first);
        assert.is(deleted.code, 7);
        assert.match(deleted.stderr, new RegExp(`Entry ${removed} of the audit log of org acme is missing`));
      } finally {
        await client.end();
      }
    },
  );
  pgTest.run();
}

test.run();
await onPostgres('the audit log with several service processes', postgresSuite);
