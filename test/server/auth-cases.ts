import type { Test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Fixture } from './fixture.js';
import { assertProblem, clientFor, request, sha256, trace } from './http.js';

/** Health, tokens, whoami, targets, tenancy and administration. */
export function authCases(test: Test<{ fixture: Fixture }>): void {
  test('GET /healthz answers without a token, with a request id', async ({ fixture }) => {
    const reply = await request(`${fixture.service.url}/healthz`);
    assert.is(reply.status, 200);
    assert.equal(reply.json, { status: 'ok' });
    assert.ok(reply.headers.get('x-request-id'));
  });

  test('a missing, malformed or unknown token gets 401 unauthorized before the body is read', async ({ fixture }) => {
    const { service } = fixture;
    assertProblem(await clientFor(service, undefined, 'acme', 'web').push('traces', [trace()]), 401, 'unauthorized');
    assertProblem(await clientFor(service, 'trc_not-a-real-token', 'acme', 'web').push('traces', [trace()]), 401, 'unauthorized');
    assertProblem(
      await request(`${service.url}/api/v1/sync/traces`, { method: 'POST', headers: { authorization: 'Basic abc' }, body: '{oops' }),
      401,
      'unauthorized',
    );
    assertProblem(await clientFor(service, undefined, 'acme', 'web').get('/api/v1/auth/whoami'), 401, 'unauthorized');
    assert.is((await clientFor(service, undefined, 'acme', 'web').head(`/api/v1/blobs/${'0'.repeat(64)}`)).status, 401);
  });

  test('whoami describes the token whatever the target headers say', async ({ fixture }) => {
    const web = await fixture.web.get('/api/v1/auth/whoami');
    assert.is(web.status, 200);
    assert.equal(web.json, { org_slug: 'acme', project_slug: 'web', scope: 'project', token_name: 'web-laptop', role: 'read' });
    const org = await clientFor(fixture.service, fixture.tokens.acmeOrg, 'globex', 'elsewhere').get('/api/v1/auth/whoami');
    assert.equal(org.json, { org_slug: 'acme', project_slug: null, scope: 'org', token_name: 'acme-ci', role: 'read' });
    const noHeaders = await request(`${fixture.service.url}/api/v1/auth/whoami`, {
      headers: { authorization: `Bearer ${fixture.tokens.shop}` },
    });
    assert.is(noHeaders.json.project_slug, 'shop');
    const gateway = await request(`${fixture.service.url}/gw/acme/api/api/v1/auth/whoami`, {
      headers: { authorization: `Bearer ${fixture.tokens.web}` },
    });
    assert.is(gateway.status, 200);
    assert.is(gateway.json.project_slug, 'web');
  });

  test('a project token reaches its project only; an org token every project of its org and nothing else', async ({ fixture }) => {
    const { service, tokens } = fixture;
    assert.is((await fixture.web.pull('traces')).status, 200);
    assertProblem(await clientFor(service, tokens.web, 'acme', 'api').pull('traces'), 403, 'forbidden');
    assertProblem(await clientFor(service, tokens.web, 'acme', 'api').push('traces', [trace()]), 403, 'forbidden');
    assert.is((await clientFor(service, tokens.acmeOrg, 'acme', 'api').pull('traces')).status, 200);
    assert.is((await fixture.acmeOrgOnWeb.push('traces', [trace()])).status, 200);
    assertProblem(await clientFor(service, tokens.acmeOrg, 'globex', 'shop').pull('traces'), 403, 'forbidden');
    assertProblem(await clientFor(service, tokens.globexOrg, 'acme', 'web').pull('traces'), 403, 'forbidden');
    // Another org's project is 403 whether or not it exists: a token never probes other tenants.
    assertProblem(await clientFor(service, tokens.globexOrg, 'acme', 'no-such').pull('traces'), 403, 'forbidden');
    assertProblem(await clientFor(service, tokens.acmeOrg, 'acme', 'no-such').pull('traces'), 404, 'project_not_found');
  });

  test('rows of one project never show in another', async ({ fixture }) => {
    const mine = trace({ tenant: 'web-only' });
    assert.is((await fixture.web.push('traces', [mine])).json.inserted, 1);
    assert.ok((await fixture.web.pullAll('traces')).some((item) => item.id === mine.id));
    assert.not.ok((await fixture.api.pullAll('traces')).some((item) => item.id === mine.id));
    assert.not.ok((await fixture.shop.pullAll('traces')).some((item) => item.id === mine.id));
    // The same row pushed to another project is a new row there.
    assert.is((await fixture.api.push('traces', [mine])).json.inserted, 1);
  });

  test('blobs are visible only to the projects that uploaded them', async ({ fixture }) => {
    const bytes = Buffer.from(`secret transcript ${Date.now()}`);
    const sha = sha256(bytes);
    assert.is((await fixture.web.uploadBlob(bytes)).status, 201);
    assert.is((await fixture.web.head(`/api/v1/blobs/${sha}`)).status, 200);
    for (const stranger of [fixture.api, fixture.shop, clientFor(fixture.service, fixture.tokens.acmeOrg, 'acme', 'api')]) {
      assert.is((await stranger.head(`/api/v1/blobs/${sha}`)).status, 404);
      assertProblem(await stranger.get(`/api/v1/blobs/${sha}`), 404, 'not_found');
    }
    assertProblem(await fixture.shop.get(`/api/v1/blobs/${sha}`), 404, 'not_found');
    // Uploading the same bytes proves possession; then that project sees them too.
    assert.is((await fixture.shop.uploadBlob(bytes)).status, 201);
    assert.is((await fixture.shop.get(`/api/v1/blobs/${sha}`)).text, bytes.toString());
  });

  test('targets: headers, the gateway mount, both agreeing, disagreeing, missing or invalid', async ({ fixture }) => {
    const { service, tokens } = fixture;
    const auth = { authorization: `Bearer ${tokens.web}` };
    const viaGateway = await request(`${service.url}/gw/acme/web/api/v1/sync/traces`, { headers: auth });
    assert.is(viaGateway.status, 200, viaGateway.text);
    assert.is((await clientFor(service, tokens.web, 'acme', 'web', `${service.url}/gw/acme/web`).pull('traces')).status, 200);
    assertProblem(await clientFor(service, tokens.web, 'acme', 'api', `${service.url}/gw/acme/web`).pull('traces'), 400, 'target_mismatch');
    assertProblem(
      await clientFor(service, tokens.acmeOrg, 'acme', 'web', `${service.url}/gw/acme/api`).push('traces', [trace()]),
      400,
      'target_mismatch',
    );
    assertProblem(await request(`${service.url}/api/v1/sync/traces`, { headers: auth }), 400, 'target_missing');
    assertProblem(await clientFor(service, tokens.web, 'Acme', 'web').pull('traces'), 400, 'invalid_target');
    assertProblem(await request(`${service.url}/gw/acme/NOPE!/api/v1/sync/traces`, { headers: auth }), 400, 'invalid_target');
  });

  test('admin routes: secret required, slugs checked, 201 then 200, tokens shown once', async ({ fixture }) => {
    const { service } = fixture;
    const admin = (path: string, body: unknown, secret = service.adminSecret) =>
      request(`${service.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    assertProblem(await admin('/api/v1/admin/projects', { org_slug: 'acme', project_slug: 'new' }, 'wrong'), 401, 'unauthorized');
    assertProblem(
      await request(`${service.url}/api/v1/admin/projects`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      }),
      401,
      'unauthorized',
    );
    // A project token is not the admin secret.
    assertProblem(
      await admin('/api/v1/admin/projects', { org_slug: 'acme', project_slug: 'new' }, fixture.tokens.web),
      401,
      'unauthorized',
    );
    const invalid = await admin('/api/v1/admin/projects', { org_slug: 'Acme', project_slug: '' });
    assertProblem(invalid, 422, 'invalid_body');
    assert.equal(
      invalid.json.errors.map((error: { field: string }) => error.field),
      ['org_slug', 'project_slug'],
    );
    assert.is((await admin('/api/v1/admin/projects', { org_slug: 'acme', project_slug: 'new' })).status, 201);
    const again = await admin('/api/v1/admin/projects', { org_slug: 'acme', project_slug: 'new' });
    assert.is(again.status, 200);
    assert.is(again.json.created, false);
    assertProblem(await admin('/api/v1/admin/tokens', { org_slug: 'acme', project_slug: 'missing', name: 'x' }), 404, 'project_not_found');
    assertProblem(await admin('/api/v1/admin/tokens', { org_slug: 'acme', project_slug: 'new' }), 422, 'invalid_body');
    const created = await admin('/api/v1/admin/tokens', { org_slug: 'acme', project_slug: 'new', name: 'fresh' });
    assert.is(created.status, 201);
    assert.equal(
      { ...created.json, token: 'x' },
      { token: 'x', org_slug: 'acme', project_slug: 'new', scope: 'project', name: 'fresh', role: 'read' },
    );
    const who = await clientFor(service, created.json.token, 'acme', 'new').get('/api/v1/auth/whoami');
    assert.is(who.json.token_name, 'fresh');
    assertProblem(await admin('/api/v1/admin/projects', '{not json'), 422, 'invalid_body');
    assertProblem(
      await request(`${service.url}/api/v1/admin/projects`, {
        method: 'POST',
        headers: { authorization: `Bearer ${service.adminSecret}`, 'content-type': 'application/json' },
        body: '{not json',
      }),
      400,
      'invalid_json',
    );
  });

  test('without TRACER_ADMIN_SECRET the admin routes refuse with admin_disabled', async ({ fixture }) => {
    const service = await fixture.start({ adminSecret: null });
    const reply = await request(`${service.url}/api/v1/admin/projects`, {
      method: 'POST',
      headers: { authorization: 'Bearer anything', 'content-type': 'application/json' },
      body: JSON.stringify({ org_slug: 'a', project_slug: 'b' }),
    });
    assertProblem(reply, 404, 'admin_disabled');
    await service.stop();
  });
}
