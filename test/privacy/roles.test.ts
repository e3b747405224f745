import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/cli.js';
import { onPostgres, startService, stopAllServices, type ServiceHandle } from '../helpers/service.js';
import { assertProblem, clientFor, conversation, sha256, summary, trace, type Client } from '../server/http.js';
import { signIn, tokenWithRole } from './support.js';

/**
 * Issue 31, roles: a push token cannot pull another member's transcript or open
 * one in the team view; a read token cannot forget; an org admin cannot act on
 * another org; on both backends, for every route.
 */
function rolesSuite(backend: 'sqlite' | 'postgres') {
  const test = suite<{
    service: ServiceHandle;
    push: Client;
    read: Client;
    admin: Client;
    tokens: Record<'push' | 'read' | 'admin' | 'orgAdmin' | 'legacy', string>;
  }>(`token roles (${backend})`);
  test.before(async (context) => {
    const service = await startService({ backend });
    for (const [org, project] of [
      ['acme', 'web'],
      ['acme', 'api'],
      ['globex', 'shop'],
    ])
      await service.createProject(org!, project!);
    const tokens = {
      push: await tokenWithRole(service, { org: 'acme', project: 'web', name: 'ci', role: 'push' }),
      read: await tokenWithRole(service, { org: 'acme', project: 'web', name: 'bob', role: 'read' }),
      admin: await tokenWithRole(service, { org: 'acme', project: 'web', name: 'ada', role: 'admin' }),
      orgAdmin: await tokenWithRole(service, { org: 'acme', name: 'acme-admin', role: 'admin' }),
      legacy: await service.createToken({ org: 'acme', project: 'web', name: 'old' }),
    };
    Object.assign(context, {
      service,
      tokens,
      push: clientFor(service, tokens.push, 'acme', 'web'),
      read: clientFor(service, tokens.read, 'acme', 'web'),
      admin: clientFor(service, tokens.admin, 'acme', 'web'),
    });
  });
  test.after(async () => {
    await stopAllServices();
    cleanup();
  });

  test('whoami and token creation name the role; a token made without one is read', async ({ service, push, tokens }) => {
    assert.is((await push.get('/api/v1/auth/whoami')).json.role, 'push');
    assert.is((await clientFor(service, tokens.legacy, 'acme', 'web').get('/api/v1/auth/whoami')).json.role, 'read');
    const bad = await fetch(`${service.url}/api/v1/admin/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${service.adminSecret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ org_slug: 'acme', name: 'x', role: 'owner' }),
    });
    assert.is(bad.status, 422);
  });

  test('a push token uploads and checks what is held, pulls what holds no text, and nothing else', async ({ push }) => {
    const bytes = Buffer.from('a transcript only readers may see\n');
    const big = Buffer.alloc(300 * 1024, 7);
    assert.is((await push.push('traces', [trace({ conversation_id: 'c-push' })])).status, 200);
    assert.is((await push.push('conversations', [conversation(bytes, true, { conversation_id: 'c-push' })])).status, 200);
    assert.is((await push.push('summaries', [summary({ conversation_id: 'c-push', summary: 'secret summary' })])).status, 200);
    assert.is((await push.uploadBlob(big)).status, 201);
    assert.is((await push.head(`/api/v1/blobs/${sha256(big)}`)).status, 200);
    assert.is((await push.pull('traces')).status, 200);
    assert.is((await push.pull('ledgers')).status, 200);
    assert.is((await push.pull('commit-links')).status, 200);
    assert.is((await push.get('/api/v1/tombstones')).status, 200);
    assertProblem(await push.pull('conversations'), 403, 'role_forbids');
    assertProblem(await push.pull('summaries'), 403, 'role_forbids');
    assertProblem(await push.get(`/api/v1/blobs/${sha256(big)}`), 403, 'role_forbids');
    const refused = await push.pull('conversations');
    assert.match(refused.json.detail, /role read/);
    for (const reply of await adminRoutes(push)) assertProblem(reply, 403, 'role_forbids');
  });

  test('a read token pulls and reads transcripts but cannot forget, set retention or read the audit log', async ({ read }) => {
    assert.is((await read.pull('conversations')).status, 200);
    assert.is((await read.pull('summaries')).status, 200);
    for (const reply of await adminRoutes(read)) assertProblem(reply, 403, 'role_forbids');
  });

  test('an admin acts on its own scope only', async ({ service, admin, tokens }) => {
    for (const reply of await adminRoutes(admin)) assert.ok(reply.status === 200, `${reply.status} ${reply.text}`);
    // A project admin is a stranger to the org's other project; an org admin to another org.
    for (const reply of await adminRoutes(clientFor(service, tokens.admin, 'acme', 'api'))) assertProblem(reply, 403, 'forbidden');
    for (const reply of await adminRoutes(clientFor(service, tokens.orgAdmin, 'globex', 'shop'))) assertProblem(reply, 403, 'forbidden');
    for (const reply of await adminRoutes(clientFor(service, tokens.orgAdmin, 'acme', 'api'))) assert.is(reply.status, 200, reply.text);
  });

  test('the team view shows a push token aggregates, never a transcript or a summary', async ({ service, tokens }) => {
    const cookie = (token: string) => signIn(service.url, token);
    const asPush = await cookie(tokens.push);
    const list = await fetch(`${service.url}/ui/api/p/acme/web/sessions`, { headers: { cookie: asPush } });
    assert.is(list.status, 200);
    const row = (
      (await list.json()) as { items: Array<{ conversation_id: string; summary: string | null; has_transcript: boolean }> }
    ).items.find((item) => item.conversation_id === 'c-push')!;
    assert.is(row.summary, null);
    assert.is(row.has_transcript, false);
    const detail = (await (
      await fetch(`${service.url}/ui/api/p/acme/web/sessions/c-push`, { headers: { cookie: asPush } })
    ).json()) as Record<string, unknown>;
    assert.is(detail.transcript_hidden, true);
    assert.is(detail.forget_url, null);
    const transcript = await fetch(`${service.url}/ui/api/p/acme/web/sessions/c-push/transcript`, { headers: { cookie: asPush } });
    assert.is(transcript.status, 403);
    assert.is(((await transcript.json()) as { code: string }).code, 'role_forbids');
    const forgetPage = await fetch(`${service.url}/ui/p/acme/web/sessions/c-push/forget`, { headers: { cookie: asPush } });
    assert.is(forgetPage.status, 403);

    const asRead = await cookie(tokens.read);
    const readable = await fetch(`${service.url}/ui/api/p/acme/web/sessions/c-push/transcript`, { headers: { cookie: asRead } });
    assert.is(readable.status, 200);
    assert.is((await fetch(`${service.url}/ui/p/acme/web/sessions/c-push/forget`, { headers: { cookie: asRead } })).status, 403);

    // An admin confirms, from this site, naming the conversation; from another site it is refused.
    const asAdmin = await cookie(tokens.admin);
    const detailForAdmin = (await (
      await fetch(`${service.url}/ui/api/p/acme/web/sessions/c-push`, { headers: { cookie: asAdmin } })
    ).json()) as Record<string, unknown>;
    assert.is(detailForAdmin.forget_url, '/ui/p/acme/web/sessions/c-push/forget');
    assert.is((await fetch(`${service.url}/ui/p/acme/web/sessions/c-push/forget`, { headers: { cookie: asAdmin } })).status, 200);
    const post = (headers: Record<string, string>, conversationId: string) =>
      fetch(`${service.url}/ui/p/acme/web/sessions/c-push/forget`, {
        method: 'POST',
        headers: { cookie: asAdmin, 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: `conversation=${conversationId}`,
        redirect: 'manual',
      });
    assert.is((await post({ 'sec-fetch-site': 'cross-site' }, 'c-push')).status, 403);
    assert.is((await post({ 'sec-fetch-site': 'same-origin' }, 'c-other')).status, 400);
    assert.is(
      (await fetch(`${service.url}/ui/api/p/acme/web/sessions/c-push/transcript`, { headers: { cookie: asRead } })).status,
      200,
      'nothing forgotten yet',
    );
    const done = await post({ 'sec-fetch-site': 'same-origin' }, 'c-push');
    assert.is(done.status, 303);
    assert.is((await fetch(`${service.url}/ui/api/p/acme/web/sessions/c-push/transcript`, { headers: { cookie: asRead } })).status, 404);
    const after = (await (await fetch(`${service.url}/ui/api/p/acme/web/sessions/c-push`, { headers: { cookie: asRead } })).json()) as {
      forgotten: { reason: string; by: string };
      summary: string | null;
    };
    assert.is(after.forgotten.reason, 'forget');
    assert.is(after.forgotten.by, 'ada');
    assert.is(after.summary, null);
  });
  return test;
}

/** Every route that needs role admin, asked by `client` with harmless bodies. */
async function adminRoutes(client: Client) {
  const json = 'application/json';
  return [
    await client.post('/api/v1/forget', JSON.stringify({ conversation_ids: ['none'], dry_run: true }), json),
    await client.get('/api/v1/retention'),
    await client.post('/api/v1/retention/run', '{}', json),
    await client.get('/api/v1/audit'),
  ];
}

rolesSuite('sqlite').run();
await onPostgres('token roles on PostgreSQL', () => rolesSuite('postgres').run());
