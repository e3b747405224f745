import nock from 'nock';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ExitCode } from '../../src/core/errors.js';
import type { FamilyDefinition } from '../../src/kernel/families.js';
import { FeatureMissing, ItemsRefused, type Transport } from '../../src/kernel/transport.js';
import { createHttpTransport } from '../../src/protocol/http-transport.js';
import { remote } from '../plugins/harness.js';
import { rejectionOf } from '../helpers/errors.js';

/**
 * The Transport's mappings for what a real service does not do on demand: 5xx
 * storms, malformed answers, time-outs, and the quick (one attempt) connection.
 */
const BASE = 'http://faults.test';
const TRACES: FamilyDefinition = { name: 'traces', idMember: 'id', required: ['id', 'ts'], storage: [] };
// A time-out long enough for a busy machine (the first request of a process also loads node-fetch, and a
// timed-out attempt would take the reply meant for the next); the time-out case sets its own short one.
const ENV = { TRACER_HTTP_ATTEMPTS: '3', TRACER_HTTP_BACKOFF_MS: '1', TRACER_HTTP_TIMEOUT_MS: '10000' };
const opened: Transport[] = [];
const open = (request = {}, env: Record<string, string> = ENV) => {
  const transport = createHttpTransport(remote(`${BASE}/acme/web`), request, env);
  opened.push(transport);
  return transport;
};

test.before(() => nock.disableNetConnect());
test.after.each(() => {
  nock.cleanAll();
  for (const transport of opened.splice(0)) transport.close();
});
test.after(() => nock.enableNetConnect());

test('a 5xx storm on send fails the run (exit 5) after the retries, never as an item refusal', async () => {
  let calls = 0;
  nock(BASE)
    .post('/api/v1/sync/traces')
    .times(5)
    .reply(() => ((calls += 1), [503, { code: 'unavailable', detail: 'overloaded' }]));
  const error = await rejectionOf(open().send(TRACES, ['{"id":"x"}']));
  assert.not.instance(error, ItemsRefused);
  assert.is(calls, 3);
  assert.is(error.code, 'unavailable');
  assert.is(error.exitCode, ExitCode.network);
});

test('a quick connection tries once', async () => {
  let calls = 0;
  nock(BASE)
    .get('/api/v1/auth/whoami')
    .times(3)
    .reply(() => ((calls += 1), [503, '']));
  const error = await rejectionOf(open({ quick: true }).identify());
  assert.is(calls, 1);
  assert.is(error.exitCode, ExitCode.network);
});

test('malformed answers: a page without items, whoami without scope, a body that is not JSON', async () => {
  nock(BASE).get('/api/v1/sync/traces').query(true).reply(200, { items: 5 });
  const page = await rejectionOf(open().page(TRACES, { limit: 10 }));
  assert.is(page.code, 'malformed_response');
  assert.is(page.exitCode, ExitCode.network);
  nock(BASE).get('/api/v1/auth/whoami').reply(200, { org_slug: 'acme' });
  assert.is((await rejectionOf(open().identify())).code, 'malformed_response');
  nock(BASE).post('/api/v1/sync/traces').reply(200, '<html>proxy login</html>');
  assert.is((await rejectionOf(open().send(TRACES, ['{"id":"x"}']))).code, 'malformed_response');
});

test('the page query carries after, limit and since; 405 and 501 are missing routes too', async () => {
  const scope = nock(BASE)
    .get('/api/v1/sync/traces')
    .query({ after: 'c1', limit: '500', since: '2024-01-01T00:00:00.000Z' })
    .reply(200, { items: [], next_cursor: null, has_more: false });
  assert.equal(await open().page(TRACES, { after: 'c1', limit: 500, since: '2024-01-01T00:00:00.000Z' }), {
    items: [],
    texts: [],
    next: null,
    hasMore: false,
  });
  assert.ok(scope.isDone());
  nock(BASE).post('/api/v1/sync/traces').reply(405, '').get('/api/v1/auth/whoami').reply(501, '');
  assert.instance(await rejectionOf(open().send(TRACES, ['{"id":"x"}'])), FeatureMissing);
  assert.instance(await rejectionOf(open().identify()), FeatureMissing);
});

test('a time-out is retried, then reported as timeout (exit 5)', async () => {
  nock(BASE).get('/api/v1/auth/whoami').times(3).delay(1_000).reply(200, {});
  const error = await rejectionOf(open({}, { ...ENV, TRACER_HTTP_TIMEOUT_MS: '100' }).identify());
  assert.is(error.code, 'timeout');
  assert.is(error.exitCode, ExitCode.network);
});

test.run();
