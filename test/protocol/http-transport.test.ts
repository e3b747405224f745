import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withContentId } from '../../src/core/content-id.js';
import { ExitCode, TracerError } from '../../src/core/errors.js';
import type { FamilyDefinition } from '../../src/kernel/families.js';
import { Kernel } from '../../src/kernel/kernel.js';
import { FeatureMissing, ItemsRefused, type Transport } from '../../src/kernel/transport.js';
import { CONVERSATIONS_FAMILY } from '../../src/engine/conversation-store.js';
import httpPlugin from '../../src/plugins/http.js';
import { createHttpTransport } from '../../src/protocol/http-transport.js';
import { ITEMS_PER_REQUEST } from '../../src/protocol/limits.js';
import { cleanup, tempDir } from '../helpers/cli.js';
import { startService, stopAllServices, type ServiceHandle } from '../helpers/service.js';
import { remote } from '../plugins/harness.js';
import { rejectionOf } from '../helpers/errors.js';

/**
 * The HTTP Transport against a real service (in this process), old-server
 * routes switched off where a case needs it: every method, and how each answer
 * maps to FeatureMissing, ItemsRefused or a TracerError. What a real server
 * cannot do on demand (resets, time-outs, 5xx storms) is test/net/client.test.ts.
 */
const TRACES: FamilyDefinition = {
  name: 'traces',
  idMember: 'id',
  required: ['id', 'ts'],
  storage: [],
  members: { ts: 'timestamp' },
};
const SUMMARIES: FamilyDefinition = { ...TRACES, name: 'summaries', required: ['id', 'ts'] };
const ENV = { TRACER_HTTP_ATTEMPTS: '2', TRACER_HTTP_BACKOFF_MS: '1' };

let service: ServiceHandle;
let orgToken: string;
let projectToken: string;
const opened: Transport[] = [];

function open(url = `${service.url}/acme/web`, token: string | undefined = projectToken, env: NodeJS.ProcessEnv = ENV): Transport {
  const transport = createHttpTransport({ ...remote(url, token!), token }, {}, env);
  opened.push(transport);
  return transport;
}

const trace = (n: number, ts = '2024-05-01T00:00:00.000Z') => withContentId({ id: '', ts, n }, 'id');
const texts = (items: readonly object[]) => items.map((item) => JSON.stringify(item));
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

test.before(async () => {
  service = await startService({ blobMaxBytes: 64 * 1024 });
  await service.createProject('acme', 'web');
  orgToken = await service.createToken({ org: 'acme', name: 'org-wide' });
  projectToken = await service.createToken({ org: 'acme', project: 'web', name: 'ci' });
});
test.after.each(() => {
  for (const transport of opened.splice(0)) transport.close();
});
test.after(async () => {
  await stopAllServices();
  cleanup();
});

test('limits and location come from the protocol; the location is the API root of either mount', () => {
  const standalone = open();
  assert.equal(standalone.limits, { itemsPerRequest: 500, bytesPerRequest: 8 * 1024 * 1024, pageSize: 500 });
  assert.is(standalone.location, service.url);
  assert.is(open(`${service.url}/gw/acme/web`).location, `${service.url}/gw/acme/web`);
});

test('identify: the credentials as whoami describes them, org-wide or for one project', async () => {
  assert.equal(await open().identify(), { org_slug: 'acme', project_slug: 'web', scope: 'project', token_name: 'ci' });
  assert.equal(await open(undefined, orgToken).identify(), { org_slug: 'acme', project_slug: null, scope: 'org', token_name: 'org-wide' });
});

test('identify: no whoami route is FeatureMissing(whoami); a refused token is unauthorized (exit 4)', async () => {
  const old = await startService({ disableRoutes: ['whoami'] });
  const error = await rejectionOf(open(`${old.url}/acme/web`, 'any').identify());
  assert.instance(error, FeatureMissing);
  assert.is((error as FeatureMissing).feature, 'whoami');
  assert.is((error as FeatureMissing).where, '/api/v1/auth/whoami');
  const refused = await rejectionOf(open(undefined, 'not-a-token').identify());
  assert.not.instance(refused, FeatureMissing);
  assert.is(refused.code, 'unauthorized');
  assert.is(refused.exitCode, ExitCode.auth);
  assert.match(refused.message, 'tracer remote set-token origin');
});

test('send: counts of a batch; the same batch again is all duplicates; the gateway mount works alike', async () => {
  const batch = [trace(1), trace(2), trace(3)];
  assert.equal(await open().send(TRACES, texts(batch)), { received: 3, inserted: 3, duplicates: 0 });
  assert.equal(await open(`${service.url}/gw/acme/web`).send(TRACES, texts(batch)), { received: 3, inserted: 0, duplicates: 3 });
});

test('send: invalid items are named by index; other refusals of a batch name none', async () => {
  const bad = { ...trace(10), ts: 'yesterday' };
  const named = await rejectionOf(open().send(TRACES, texts([trace(11), bad, trace(12)])));
  assert.instance(named, ItemsRefused);
  assert.is(named.code, 'invalid_item');
  assert.is(named.exitCode, ExitCode.validation);
  assert.equal([...(named as ItemsRefused).items.keys()], [1]);
  assert.match((named as ItemsRefused).items.get(1)!, 'ts');

  const tooMany = await rejectionOf(open().send(TRACES, texts(Array.from({ length: ITEMS_PER_REQUEST + 1 }, (_, n) => trace(1000 + n)))));
  assert.instance(tooMany, ItemsRefused);
  assert.is(tooMany.code, 'too_many_items');
  assert.is((tooMany as ItemsRefused).items.size, 0);
  assert.is((tooMany as ItemsRefused).needsBlobs, false);

  const wrongId = await rejectionOf(open().send(TRACES, texts([{ ...trace(20), n: 21 }])));
  assert.instance(wrongId, ItemsRefused);
  assert.is(wrongId.code, 'content_id_mismatch');
});

test('send: a pointer row whose bytes the remote lacks is refused with needsBlobs', async () => {
  const bytes = Buffer.alloc(300 * 1024, 7);
  const row = { conversation_id: 'c-1', content_sha256: sha256(bytes), size: bytes.length, ts: '2024-05-01T00:00:00.000Z' };
  const error = await rejectionOf(open().send(CONVERSATIONS_FAMILY, texts([row])));
  assert.instance(error, ItemsRefused);
  assert.is(error.code, 'blob_missing');
  assert.is((error as ItemsRefused).needsBlobs, true);
});

test('send and page: a family route the server lacks is FeatureMissing(<family>), not a refusal', async () => {
  const old = await startService({ disableRoutes: ['summaries'] });
  await old.createProject('acme', 'web');
  const token = await old.createToken({ org: 'acme', project: 'web' });
  const transport = open(`${old.url}/acme/web`, token);
  for (const attempt of [transport.send(SUMMARIES, texts([trace(1)])), transport.page(SUMMARIES, { limit: 10 })]) {
    const error = await rejectionOf(attempt);
    assert.instance(error, FeatureMissing);
    assert.is((error as FeatureMissing).feature, 'summaries');
    assert.is((error as FeatureMissing).where, '/api/v1/sync/summaries');
  }
  // A project the server does not know is no missing route: it says what to do instead.
  const unknown = await rejectionOf(open(`${old.url}/acme/other`, await old.createToken({ org: 'acme' })).page(TRACES, { limit: 10 }));
  assert.not.instance(unknown, FeatureMissing);
  assert.is(unknown.code, 'project_not_found');
  assert.is(unknown.exitCode, ExitCode.scope);
});

test('send: a token for another project is forbidden (exit 6), never an item refusal', async () => {
  await service.createProject('acme', 'other');
  const error = await rejectionOf(open(`${service.url}/acme/other`).send(TRACES, texts([trace(1)])));
  assert.not.instance(error, ItemsRefused);
  assert.is(error.code, 'forbidden');
  assert.is(error.exitCode, ExitCode.scope);
});

test('page: pages in order with next and hasMore, each row with its own text; since filters', async () => {
  await service.createProject('acme', 'pages');
  const transport = open(`${service.url}/acme/pages`, orgToken);
  const rows = Array.from({ length: 5 }, (_, n) => trace(100 + n, `2024-05-0${n + 1}T00:00:00.000Z`));
  await transport.send(TRACES, texts(rows));
  const first = await transport.page(TRACES, { limit: 3 });
  assert.equal(first.items, rows.slice(0, 3));
  assert.equal(first.texts, texts(rows.slice(0, 3)));
  assert.is(first.hasMore, true);
  assert.type(first.next, 'string');
  const second = await transport.page(TRACES, { limit: 3, after: first.next! });
  assert.equal(second.items, rows.slice(3));
  assert.is(second.hasMore, false);
  const since = await transport.page(TRACES, { limit: 10, since: '2024-05-04T00:00:00.000Z' });
  assert.equal(since.items, rows.slice(3));
});

test('page: a family without an id member gets no row texts', async () => {
  const bytes = Buffer.from('a small transcript');
  const row = {
    conversation_id: 'c-small',
    content_sha256: sha256(bytes),
    size: bytes.length,
    ts: '2024-05-01T00:00:00.000Z',
    content_base64: bytes.toString('base64'),
  };
  await service.createProject('acme', 'talk');
  const transport = open(`${service.url}/acme/talk`, orgToken);
  await transport.send(CONVERSATIONS_FAMILY, texts([row]));
  const page = await transport.page(CONVERSATIONS_FAMILY, { limit: 10 });
  assert.is(page.items.length, 1);
  assert.is(page.texts, undefined);
});

test('blobs: HEAD, upload, upload again, download', async () => {
  const transport = open();
  const bytes = Buffer.from('the bytes of a transcript, large enough in real life');
  const sha = sha256(bytes);
  assert.is(await transport.hasBlob(sha), false);
  let opens = 0;
  const stream = () => ((opens += 1), Readable.from([bytes]));
  assert.equal(await transport.putBlob(sha, bytes.length, stream), { alreadyPresent: false });
  assert.equal(await transport.putBlob(sha, bytes.length, stream), { alreadyPresent: true });
  assert.is(opens, 2);
  assert.is(await transport.hasBlob(sha), true);
  const read = await transport.getBlob(sha, async (body) => {
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  });
  assert.equal(read, bytes);
});

test('blobs: a refused blob is ItemsRefused (sha mismatch, too large, unknown on GET); what consume throws goes up as it is', async () => {
  const transport = open();
  const bytes = Buffer.from('some bytes');
  const mismatch = await rejectionOf(transport.putBlob('0'.repeat(64), bytes.length, () => Readable.from([bytes])));
  assert.instance(mismatch, ItemsRefused);
  assert.is(mismatch.code, 'sha_mismatch');
  const big = Buffer.alloc(65 * 1024, 1);
  const tooLarge = await rejectionOf(transport.putBlob(sha256(big), big.length, () => Readable.from([big])));
  assert.instance(tooLarge, ItemsRefused);
  assert.is(tooLarge.code, 'blob_too_large');
  const unknown = await rejectionOf(transport.getBlob('1'.repeat(64), async () => 'never'));
  assert.instance(unknown, ItemsRefused);
  const held = sha256(bytes);
  await transport.putBlob(held, bytes.length, () => Readable.from([bytes]));
  const own = new TracerError('sha_mismatch', 'the consumer refused the bytes');
  const thrown = await rejectionOf(
    transport.getBlob(held, async (body) => {
      body.resume();
      throw own;
    }),
  );
  assert.is(thrown, own);
});

test('blobs: a server without blob routes is FeatureMissing(blobs), told apart from "not held" by the probe', async () => {
  const old = await startService({ disableRoutes: ['blobs'] });
  await old.createProject('acme', 'web');
  const transport = open(`${old.url}/acme/web`, await old.createToken({ org: 'acme', project: 'web' }));
  const bytes = Buffer.from('bytes');
  for (const attempt of [
    () => transport.hasBlob(sha256(bytes)),
    () => transport.hasBlob(sha256(bytes)),
    () => transport.putBlob(sha256(bytes), bytes.length, () => Readable.from([bytes])),
  ]) {
    const error = await rejectionOf(attempt());
    assert.instance(error, FeatureMissing);
    assert.is((error as FeatureMissing).feature, 'blobs');
  }
});

test('failures to reach the remote are network errors (exit 5) with the remote named', async () => {
  const error = await rejectionOf(open('http://127.0.0.1:1/acme/web').send(TRACES, texts([trace(1)])));
  assert.not.instance(error, ItemsRefused);
  assert.is(error.code, 'network_error');
  assert.is(error.exitCode, ExitCode.network);
  assert.match(error.message, 'Cannot reach remote "origin" at http://127.0.0.1:1');
});

test('yieldToRequests lets the event loop turn', async () => {
  let turned = false;
  setImmediate(() => (turned = true));
  await open().yieldToRequests();
  assert.ok(turned);
});

test('the http plugin opens http(s) remotes through the connect hook, and only those', async () => {
  const dir = tempDir('tracer-http-plugin-');
  const kernel = new Kernel({ home: tempDir('tracer-http-home-'), cwd: dir, env: ENV });
  await kernel.use(httpPlugin);
  const transport = await kernel.hooks.connect.promise({ ...remote(`${service.url}/acme/web`, projectToken) }, {});
  assert.ok(transport);
  opened.push(transport!);
  assert.is((await transport!.identify()).token_name, 'ci');
  const other = remote(`${service.url}/acme/web`);
  const elsewhere = await kernel.hooks.connect.promise({ ...other, target: { ...other.target, url: 'file:///drop/acme/web' } }, {});
  assert.is(elsewhere, undefined);
});

test.run();
