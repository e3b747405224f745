import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import nock from 'nock';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ExitCode, TracerError } from '../../src/core/errors.js';
import type { HttpClient } from '../../src/net/http-client.js';
import { settingsFromEnv, type ClientSettings } from '../../src/net/settings.js';
import { RemoteError } from '../../src/protocol/problem.js';
import { remoteClient, type RemoteTarget } from '../../src/protocol/remote-client.js';
import { rejectionOf } from '../helpers/errors.js';

/**
 * The HTTP client (node-fetch underneath), as a remote uses it, against what a
 * real server cannot easily do on demand: resets, time-outs, 5xx storms,
 * malformed replies.
 */
const BASE = 'http://tracer.test';
const target = (extra: Partial<RemoteTarget> = {}): RemoteTarget => ({
  name: 'origin',
  url: `${BASE}/acme/web`,
  org: 'acme',
  project: 'web',
  apiRoot: BASE,
  token: 'secret-token',
  hasToken: true,
  tokenSource: 'config.json',
  ...extra,
});
// Time-outs long enough for a busy machine (the first request of a process also loads node-fetch and
// nock's interceptors, and a timed-out attempt would take the reply meant for the next); the time-out
// case sets its own short ones.
const fast: ClientSettings = {
  retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 2, maxRetryAfterMs: 5 },
  timeoutMs: 10_000,
  transferTimeoutMs: 10_000,
};
const shortTimeouts: ClientSettings = { ...fast, timeoutMs: 150, transferTimeoutMs: 150 };
const clients: HttpClient[] = [];
const client = (extra: Partial<RemoteTarget> = {}, settings = fast) => {
  const made = remoteClient(target(extra), settings);
  clients.push(made);
  return made;
};

test.before(() => nock.disableNetConnect());
test.after.each(() => {
  nock.cleanAll();
  for (const made of clients.splice(0)) made.close();
});
test.after(() => nock.enableNetConnect());

/** An Error object, not a plain one: nock 14 hangs the request on a plain object (nock/nock#2829). */
const reset = () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });

test('every request carries the bearer token and the target headers; the gateway form keeps its prefix', async () => {
  const scope = nock(BASE, { reqheaders: { authorization: 'Bearer secret-token', 'x-tracer-org': 'acme', 'x-tracer-project': 'web' } })
    .get('/gw/acme/web/api/v1/sync/traces')
    .query({ limit: '500', after: 'c1' })
    .reply(200, { items: [], next_cursor: null, has_more: false });
  const page = await client({ apiRoot: `${BASE}/gw/acme/web` }).getJson('/api/v1/sync/traces', {
    after: 'c1',
    limit: 500,
    since: undefined,
  });
  assert.equal(page, { items: [], next_cursor: null, has_more: false });
  assert.ok(scope.isDone());
});

test('without a token no Authorization header is sent', async () => {
  const scope = nock(BASE, { badheaders: ['authorization'] })
    .get('/api/v1/auth/whoami')
    .reply(401, { code: 'unauthorized', detail: 'A bearer token is required' }, { 'content-type': 'application/problem+json' });
  const error = await rejectionOf(client({ token: undefined, hasToken: false, tokenSource: 'none' }).getJson('/api/v1/auth/whoami'));
  assert.is(error.code, 'unauthorized');
  assert.is(error.exitCode, ExitCode.auth);
  assert.match(error.message, 'tracer remote set-token origin --token <TOKEN>');
  assert.ok(scope.isDone());
});

test('problem+json keeps the service code; statuses map to the documented exit codes', async () => {
  const cases: Array<[number, string, number]> = [
    [401, 'unauthorized', ExitCode.auth],
    [403, 'forbidden', ExitCode.scope],
    [404, 'project_not_found', ExitCode.scope],
    [400, 'target_mismatch', ExitCode.scope],
    [422, 'invalid_item', ExitCode.validation],
    [413, 'too_many_items', ExitCode.validation],
    [409, 'blob_missing', ExitCode.validation],
  ];
  for (const [status, code, exitCode] of cases) {
    nock(BASE)
      .post('/api/v1/sync/traces')
      .reply(
        status,
        { type: 'about:blank', title: 'x', status, detail: `detail of ${code}`, code, errors: [{ index: 1, field: 'ts', message: 'bad' }] },
        { 'content-type': 'application/problem+json' },
      );
    const error = await rejectionOf(client().postJson('/api/v1/sync/traces', { items: [] }));
    assert.instance(error, RemoteError);
    assert.is(error.code, code);
    assert.is(error.exitCode, exitCode, code);
    assert.is((error as RemoteError).status, status);
    if (code === 'invalid_item') assert.equal((error as RemoteError).problem.errors, [{ index: 1, field: 'ts', message: 'bad' }]);
    assert.not.match(error.message, 'secret-token');
  }
});

test('a 5xx storm is retried a bounded number of times, then fails as a network error', async () => {
  let calls = 0;
  nock(BASE)
    .get('/api/v1/auth/whoami')
    .times(10)
    .reply(() => {
      calls += 1;
      return [503, { code: 'unavailable', detail: 'overloaded' }];
    });
  const error = await rejectionOf(client().getJson('/api/v1/auth/whoami'));
  assert.is(calls, 3);
  assert.is(error.exitCode, ExitCode.network);
  assert.is(error.code, 'unavailable');
});

test('5xx then success: the answer of the retry is returned', async () => {
  nock(BASE)
    .post('/api/v1/sync/ledgers')
    .reply(502, 'bad gateway')
    .post('/api/v1/sync/ledgers')
    .reply(200, { received: 1, inserted: 1, duplicates: 0 });
  assert.equal(await client().postJson('/api/v1/sync/ledgers', { items: [{}] }), { received: 1, inserted: 1, duplicates: 0 });
});

test('429 honours Retry-After (capped) and is retried', async () => {
  nock(BASE)
    .get('/api/v1/auth/whoami')
    .reply(429, { code: 'rate_limited' }, { 'retry-after': '1' })
    .get('/api/v1/auth/whoami')
    .reply(200, { org_slug: 'acme' });
  assert.equal(await client().getJson('/api/v1/auth/whoami'), { org_slug: 'acme' });
});

test('501 is an answer, not a transient failure: no retry', async () => {
  let calls = 0;
  nock(BASE)
    .get('/api/v1/auth/whoami')
    .times(3)
    .reply(() => {
      calls += 1;
      return [501, ''];
    });
  const error = await rejectionOf(client().getJson('/api/v1/auth/whoami'));
  assert.is(calls, 1);
  assert.is((error as RemoteError).status, 501);
});

test('a connection reset before the answer is retried', async () => {
  nock(BASE)
    .post('/api/v1/sync/traces')
    .replyWithError(reset())
    .post('/api/v1/sync/traces')
    .reply(200, { received: 2, inserted: 2, duplicates: 0 });
  assert.equal(await client().postJson('/api/v1/sync/traces', { items: [1, 2] }), { received: 2, inserted: 2, duplicates: 0 });
});

test('a reset in the middle of the body is retried; a download starts over', async () => {
  const broken = () => {
    let sent = false;
    return new Readable({
      read() {
        if (sent) return this.destroy(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
        sent = true;
        this.push(Buffer.from('half of the bytes '));
      },
    });
  };
  nock(BASE).get('/api/v1/blobs/abc').reply(200, broken).get('/api/v1/blobs/abc').reply(200, 'all of the bytes');
  const received: string[] = [];
  const text = await client().download('/api/v1/blobs/abc', async (body) => {
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(chunk as Buffer);
    received.push(Buffer.concat(chunks).toString());
    return received.at(-1)!;
  });
  assert.is(text, 'all of the bytes');
  nock(BASE).get('/api/v1/sync/traces').reply(200, broken).get('/api/v1/sync/traces').reply(200, { items: [] });
  assert.equal(await client().getJson('/api/v1/sync/traces'), { items: [] });
});

test('resets forever: bounded, then network_error with exit 5', async () => {
  nock(BASE).get('/api/v1/sync/traces').times(5).replyWithError(reset());
  const error = await rejectionOf(client().getJson('/api/v1/sync/traces'));
  assert.is(error.code, 'network_error');
  assert.is(error.exitCode, ExitCode.network);
  assert.ok(nock.pendingMocks().length === 1, 'three attempts used three of the five replies');
});

test('a time-out is retried, then reported as timeout (exit 5)', async () => {
  nock(BASE).get('/api/v1/auth/whoami').times(3).delay(1_000).reply(200, {});
  const error = await rejectionOf(client({}, shortTimeouts).getJson('/api/v1/auth/whoami'));
  assert.is(error.code, 'timeout');
  assert.is(error.exitCode, ExitCode.network);
  nock(BASE).get('/api/v1/auth/whoami').delay(1_000).reply(200, {}).get('/api/v1/auth/whoami').reply(200, { ok: true });
  assert.equal(await client({}, shortTimeouts).getJson('/api/v1/auth/whoami'), { ok: true });
});

test('a malformed reply is refused without retry (exit 5)', async () => {
  let calls = 0;
  nock(BASE)
    .get('/api/v1/sync/traces')
    .times(3)
    .reply(() => {
      calls += 1;
      return [200, '<html>proxy login</html>'];
    });
  const error = await rejectionOf(client().getJson('/api/v1/sync/traces'));
  assert.is(error.code, 'malformed_response');
  assert.is(error.exitCode, ExitCode.network);
  assert.is(calls, 1);
});

test('an error body that is not a problem still gives a sentence and the status', async () => {
  nock(BASE).post('/api/v1/sync/traces').reply(400, '<html>bad</html>');
  const error = await rejectionOf(client().postJson('/api/v1/sync/traces', {}));
  assert.is(error.code, 'http_400');
  assert.is(error.exitCode, ExitCode.validation);
});

test('a streamed POST is opened afresh for each attempt', async () => {
  const bodies: string[] = [];
  nock(BASE)
    .post('/api/v1/blobs', (body) => (bodies.push(String(body)), true))
    .reply(503, {})
    .post('/api/v1/blobs', (body) => (bodies.push(String(body)), true))
    .reply(201, { sha256: 'x', size: 5 });
  let opened = 0;
  const answer = await client().postStream('/api/v1/blobs', () => ((opened += 1), Readable.from([Buffer.from('bytes')])), {
    'content-type': 'application/octet-stream',
  });
  assert.is(answer.status, 201);
  assert.is(opened, 2);
  assert.equal(bodies, ['bytes', 'bytes']);
});

test('a body stream that fails (an unreadable file) fails the request instead of hanging it, without retry', async () => {
  // A real server, nock off: its interceptor reports the cut as a reset, which would be retried.
  nock.restore();
  const server = http.createServer((request, response) => request.resume().on('end', () => response.end('{}')));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let opened = 0;
  const unreadable = () =>
    new Readable({
      read() {
        opened += 1;
        this.destroy(Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' }));
      },
    });
  try {
    const { port } = server.address() as AddressInfo;
    const local = client({ apiRoot: `http://127.0.0.1:${port}` });
    const error = await rejectionOf(local.postStream('/api/v1/blobs', unreadable, { 'content-type': 'application/octet-stream' }));
    assert.is(error.code, 'network_error');
    assert.match(error.message, '(EACCES)');
    assert.is(opened, 1);
  } finally {
    server.close();
    nock.activate();
  }
});

test('nothing is asked for compressed, and no redirect is followed', async () => {
  nock(BASE, { badheaders: ['accept-encoding'] })
    .get('/api/v1/auth/whoami')
    .reply(302, '', { location: `${BASE}/elsewhere` });
  const error = await rejectionOf(client().getJson('/api/v1/auth/whoami'));
  assert.is(error.code, 'http_302');
});

test('HEAD answers the accepted statuses instead of throwing', async () => {
  nock(BASE).head('/api/v1/blobs/x').reply(404).head('/api/v1/blobs/y').reply(200, '', { 'content-length': '42' });
  assert.is((await client().head('/api/v1/blobs/x')).status, 404);
  assert.equal(await client().head('/api/v1/blobs/y'), { status: 200, contentLength: 42 });
});

test('TRACER_HTTP_* tune time-out and retries; nonsense is a usage error', () => {
  const settings = settingsFromEnv({ TRACER_HTTP_TIMEOUT_MS: '10', TRACER_HTTP_ATTEMPTS: '2', TRACER_HTTP_BACKOFF_MS: '1' });
  assert.is(settings.timeoutMs, 10);
  assert.is(settings.retry.attempts, 2);
  assert.throws(
    () => settingsFromEnv({ TRACER_HTTP_ATTEMPTS: 'many' }),
    (error: TracerError) => error.code === 'invalid_environment' && error.exitCode === ExitCode.usage,
  );
});

test.run();
