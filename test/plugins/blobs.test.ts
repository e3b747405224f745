import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nock from 'nock';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ExitCode, TracerError } from '../../src/core/errors.js';
import type { Kernel } from '../../src/kernel/kernel.js';
import type { BlobUpload } from '../../src/kernel/types.js';
import { runPush } from '../../src/engine/push.js';
import blobs from '../../src/plugins/blobs.js';
import blobsMissing from '../../src/plugins/blobs-missing.js';
import conversations from '../../src/plugins/conversations.js';
import type { Project } from '../../src/store/project.js';
import { cleanup } from '../helpers/cli.js';
import { appendRows } from '../helpers/sync-fixtures.js';
import { BASE, kernelWith, session } from './harness.js';

test.before(() => nock.disableNetConnect());
test.after.each(() => nock.cleanAll());
test.after(() => {
  nock.enableNetConnect();
  cleanup();
});

const bytes = Buffer.alloc(300 * 1024, 'z');
const sha = createHash('sha256').update(bytes).digest('hex');

function cached(project: Project, kernel: Kernel): BlobUpload {
  const path = join(project.dir, 'conversations', sha.slice(0, 2), sha);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, bytes);
  return { sha256: sha, size: bytes.length, path, family: kernel.family('conversations')! };
}

test('HEAD 200: the service already holds the bytes, nothing is posted', async () => {
  const { kernel, project } = await kernelWith(conversations, blobs, blobsMissing);
  const scope = nock(BASE).head(`/api/v1/blobs/${sha}`).reply(200);
  const { session: s, close } = await session(kernel, project, { push: {} });
  assert.equal(await kernel.hooks.uploadBlob.promise(cached(project, kernel), s), { via: 'blob', alreadyPresent: true });
  close();
  assert.ok(scope.isDone());
});

test('HEAD 404 on a server with the route: the bytes are streamed with their sha', async () => {
  const { kernel, project } = await kernelWith(conversations, blobs, blobsMissing);
  let received = 0;
  const scope = nock(BASE)
    .head(`/api/v1/blobs/${sha}`)
    .reply(404)
    .head('/api/v1/blobs/probe')
    .reply(400)
    .post('/api/v1/blobs', (body) => ((received = Buffer.from(body, 'hex').length || String(body).length), true))
    .matchHeader('x-content-sha256', sha)
    .matchHeader('content-type', 'application/octet-stream')
    .matchHeader('content-length', String(bytes.length))
    .reply(201, { sha256: sha, size: bytes.length });
  const { session: s, close } = await session(kernel, project, { push: {} });
  assert.equal(await kernel.hooks.uploadBlob.promise(cached(project, kernel), s), { via: 'blob', alreadyPresent: false });
  close();
  assert.ok(scope.isDone());
  assert.ok(received > 0);
});

test('no blob route: blobs declines, blobs-missing answers inline and writes the push error log', async () => {
  const { kernel, project } = await kernelWith(conversations, blobs, blobsMissing);
  nock(BASE).head(`/api/v1/blobs/${sha}`).reply(404).head('/api/v1/blobs/probe').reply(404);
  const { session: s, warnings, close } = await session(kernel, project, { push: {} });
  const upload = cached(project, kernel);
  assert.equal(await kernel.hooks.uploadBlob.promise(upload, s), { via: 'inline', alreadyPresent: false });
  // The route is known absent for the rest of the session: no second probe.
  assert.equal(await kernel.hooks.uploadBlob.promise(upload, s), { via: 'inline', alreadyPresent: false });
  close();
  assert.equal(
    warnings.map((warning) => warning.code),
    ['blob_fallback_inline', 'blob_fallback_inline'],
  );
  const log = readFileSync(join(project.dir, 'push-errors.log'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.is(log[0].code, 'blob_fallback_inline');
  assert.is(log[0].item, sha);
  assert.not.match(JSON.stringify(log), 'tok');
});

test('no blob route and no fallback: nobody answers', async () => {
  const { kernel, project } = await kernelWith(conversations, blobs);
  nock(BASE).head(`/api/v1/blobs/${sha}`).reply(405).head('/api/v1/blobs/probe').reply(405);
  const { session: s, close } = await session(kernel, project, { push: {} });
  assert.is(await kernel.hooks.uploadBlob.promise(cached(project, kernel), s), undefined);
  close();
});

test('413 blob_too_large is an item refusal (exit category validation)', async () => {
  const { kernel, project } = await kernelWith(conversations, blobs, blobsMissing);
  nock(BASE)
    .head(`/api/v1/blobs/${sha}`)
    .reply(404)
    .head('/api/v1/blobs/probe')
    .reply(400)
    .post('/api/v1/blobs')
    .reply(413, { code: 'blob_too_large', detail: 'over 10 MiB' });
  const { session: s, close } = await session(kernel, project, { push: {} });
  try {
    await kernel.hooks.uploadBlob.promise(cached(project, kernel), s);
    assert.unreachable('should refuse');
  } catch (error) {
    assert.instance(error, TracerError);
    assert.is((error as TracerError).code, 'blob_too_large');
    assert.is((error as TracerError).exitCode, ExitCode.validation);
  } finally {
    close();
  }
});

test('fetchBlob puts verified bytes in place; wrong bytes leave nothing behind', async () => {
  const { kernel, project } = await kernelWith(conversations, blobs);
  const family = kernel.family('conversations')!;
  const path = join(project.dir, 'conversations', sha.slice(0, 2), sha);
  nock(BASE).get(`/api/v1/blobs/${sha}`).reply(200, bytes);
  const { session: s, close } = await session(kernel, project, { direction: 'pull' });
  assert.equal(await kernel.hooks.fetchBlob.promise({ sha256: sha, size: bytes.length, path, family }, s), { size: bytes.length });
  assert.ok(readFileSync(path).equals(bytes));

  const other = createHash('sha256').update('other').digest('hex');
  const otherPath = join(project.dir, 'conversations', other.slice(0, 2), other);
  nock(BASE).get(`/api/v1/blobs/${other}`).reply(200, Buffer.from('not the right bytes'));
  try {
    await kernel.hooks.fetchBlob.promise({ sha256: other, path: otherPath, family }, s);
    assert.unreachable('should refuse');
  } catch (error) {
    assert.is((error as TracerError).code, 'sha_mismatch');
  } finally {
    close();
  }
  assert.not.ok(existsSync(otherPath));
  assert.equal(readdirSync(join(otherPath, '..')), [], 'no temp file is left');
});

test('an upload that fails while others are in flight fails the push with its own error, nothing left unhandled', async () => {
  const { kernel, project } = await kernelWith(conversations, blobs, blobsMissing);
  kernel.hooks.preflight.tap('none', () => undefined);
  const shas = ['a', 'b', 'c'].map((fill) => {
    const content = Buffer.alloc(300 * 1024, fill);
    const digest = createHash('sha256').update(content).digest('hex');
    mkdirSync(join(project.dir, 'conversations', digest.slice(0, 2)), { recursive: true });
    writeFileSync(join(project.dir, 'conversations', digest.slice(0, 2), digest), content);
    return digest;
  });
  appendRows(
    join(project.dir, 'conversations.jsonl'),
    shas.map((digest, n) => ({ conversation_id: `c${n}`, content_sha256: digest, size: 300 * 1024, ts: '2024-05-01T00:00:00.000Z' })),
  );
  // The first upload is still on its way when the second one's connection is refused.
  nock(BASE)
    .head(`/api/v1/blobs/${shas[0]}`)
    .delay(150)
    .reply(200)
    .head(`/api/v1/blobs/${shas[1]}`)
    .replyWithError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))
    .head(`/api/v1/blobs/${shas[2]}`)
    .delay(150)
    .reply(200);
  const unhandled: unknown[] = [];
  const record = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', record);
  try {
    const { session: s, close } = await session(kernel, project, { push: { full: true } });
    const failure = await runPush(kernel, s).then(
      () => undefined,
      (error: unknown) => error,
    );
    close();
    assert.instance(failure, TracerError);
    assert.is((failure as TracerError).code, 'network_error');
    assert.is((failure as TracerError).exitCode, ExitCode.network);
    await new Promise((resolve) => setTimeout(resolve, 200));
  } finally {
    process.off('unhandledRejection', record);
  }
  assert.equal(unhandled, [], 'every upload in flight was awaited');
});

test.run();
