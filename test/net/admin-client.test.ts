import nock from 'nock';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ExitCode } from '../../src/core/errors.js';
import { parseRemoteUrl } from '../../src/core/remote-url.js';
import { createTokenOnService, registerProjectOnService } from '../../src/server/admin-client.js';
import { rejectionOf } from '../helpers/errors.js';

/** The admin calls go through the one HTTP client: its retries, time-outs and failure codes. */
const BASE = 'http://admin.test';
// A time-out long enough for a busy machine (the first request of a process also loads node-fetch); the
// time-out case sets its own short one.
const ENV = { TRACER_HTTP_ATTEMPTS: '3', TRACER_HTTP_BACKOFF_MS: '1', TRACER_HTTP_TIMEOUT_MS: '10000' };
const target = parseRemoteUrl(`${BASE}/acme/web`);

test.before(() => nock.disableNetConnect());
test.after.each(() => nock.cleanAll());
test.after(() => nock.enableNetConnect());

test('the admin secret and the target go on the wire; 201 is created, 200 already there', async () => {
  const scope = nock(BASE, { reqheaders: { authorization: 'Bearer s3cret', 'x-tracer-org': 'acme', 'x-tracer-project': 'web' } })
    .post('/api/v1/admin/projects', { org_slug: 'acme', project_slug: 'web' })
    .reply(201, { org_slug: 'acme', project_slug: 'web' })
    .post('/api/v1/admin/projects')
    .reply(200, { org_slug: 'acme', project_slug: 'web' });
  assert.equal(await registerProjectOnService(target, 's3cret', ENV), { org_slug: 'acme', project_slug: 'web', created: true });
  assert.is((await registerProjectOnService(target, 's3cret', ENV)).created, false);
  assert.ok(scope.isDone());
});

test('the gateway form reaches the admin routes under its prefix', async () => {
  const scope = nock(BASE).post('/gw/acme/web/api/v1/admin/tokens').reply(201, { token: 't', org_slug: 'acme', scope: 'org', name: 'ci' });
  const created = await createTokenOnService(parseRemoteUrl(`${BASE}/gw/acme/web`), 's', { orgWide: true, name: 'ci' }, ENV);
  assert.is(created.token, 't');
  assert.ok(scope.isDone());
});

test('5xx and resets are retried like any request', async () => {
  nock(BASE)
    .post('/api/v1/admin/projects')
    .reply(503, { code: 'unavailable', detail: 'starting' })
    .post('/api/v1/admin/projects')
    .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))
    .post('/api/v1/admin/projects')
    .reply(201, { org_slug: 'acme', project_slug: 'web' });
  assert.is((await registerProjectOnService(target, 's', ENV)).created, true);
});

test('failures: network_error, timeout, and the admin codes (exit codes as documented)', async () => {
  nock(BASE)
    .post('/api/v1/admin/projects')
    .times(3)
    .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
  const unreachable = await rejectionOf(registerProjectOnService(target, 's', ENV));
  assert.is(unreachable.code, 'network_error');
  assert.is(unreachable.exitCode, ExitCode.network);
  assert.match(unreachable.message, `The service at ${BASE} did not answer`);

  nock(BASE).post('/api/v1/admin/tokens').times(3).delay(1_000).reply(201, {});
  const slow = await rejectionOf(
    createTokenOnService(target, 's', { orgWide: false, name: 'ci' }, { ...ENV, TRACER_HTTP_TIMEOUT_MS: '100' }),
  );
  assert.is(slow.code, 'timeout');
  assert.is(slow.exitCode, ExitCode.network);

  nock(BASE).post('/api/v1/admin/projects').reply(401, { code: 'unauthorized' });
  const rejected = await rejectionOf(registerProjectOnService(target, 'wrong', ENV));
  assert.is(rejected.code, 'admin_secret_rejected');
  assert.is(rejected.exitCode, ExitCode.auth);

  nock(BASE).post('/api/v1/admin/projects').reply(403, { code: 'admin_disabled', detail: 'off' });
  assert.is((await rejectionOf(registerProjectOnService(target, 's', ENV))).code, 'admin_disabled');

  nock(BASE).post('/api/v1/admin/projects').reply(404, '<html>not here</html>');
  assert.is((await rejectionOf(registerProjectOnService(target, 's', ENV))).code, 'admin_unsupported');

  nock(BASE).post('/api/v1/admin/projects').times(3).reply(502, 'bad gateway');
  const storm = await rejectionOf(registerProjectOnService(target, 's', ENV));
  assert.is(storm.code, 'service_error');
  assert.is(storm.exitCode, ExitCode.network);

  nock(BASE).post('/api/v1/admin/projects').reply(201, 'created!');
  assert.is((await rejectionOf(registerProjectOnService(target, 's', ENV))).code, 'malformed_response');
});

test.run();
