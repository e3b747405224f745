import { request as httpRequest } from 'node:http';
import { once } from 'node:events';
import type { Test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Fixture } from './fixture.js';
import { soloService } from './fixture.js';
import { assertProblem, conversation, sha256 } from './http.js';

const INLINE_BELOW = 256 * 1024;

/** Blob routes and conversation rows (inline and pointer). */
export function blobCases(test: Test<{ fixture: Fixture }>): void {
  test('POST /blobs: 201 new, 200 held, bytes back with ETag, HEAD with Content-Length', async ({ fixture }) => {
    const { web } = fixture;
    const bytes = Buffer.alloc(700 * 1024, 7);
    const sha = sha256(bytes);
    assert.is((await web.head(`/api/v1/blobs/${sha}`)).status, 404);
    const created = await web.uploadBlob(bytes);
    assert.is(created.status, 201, created.text);
    assert.equal(created.json, { sha256: sha, size: bytes.length });
    assert.is((await web.uploadBlob(bytes)).status, 200);
    const head = await web.head(`/api/v1/blobs/${sha}`);
    assert.is(head.status, 200);
    assert.is(head.headers.get('content-length'), String(bytes.length));
    const response = await fetch(`${fixture.service.url}/api/v1/blobs/${sha}`, {
      headers: { authorization: `Bearer ${fixture.tokens.web}`, 'x-tracer-org': 'acme', 'x-tracer-project': 'web' },
    });
    assert.is(response.status, 200);
    assert.is(response.headers.get('content-type'), 'application/octet-stream');
    assert.is(response.headers.get('etag'), `"${sha}"`);
    assert.ok(Buffer.from(await response.arrayBuffer()).equals(bytes));
    const empty = await web.uploadBlob(Buffer.alloc(0));
    assert.is(empty.json.size, 0);
    assert.is((await web.get(`/api/v1/blobs/${sha256('')}`)).text, '');
  });

  test('blob errors: invalid sha, sha mismatch, wrong content type; nothing kept', async ({ fixture }) => {
    const { web } = fixture;
    assertProblem(await web.get('/api/v1/blobs/ABC'), 400, 'invalid_sha');
    assertProblem(await web.get(`/api/v1/blobs/${'A'.repeat(64)}`), 400, 'invalid_sha');
    assertProblem(await web.get('/api/v1/blobs/..%2F..%2Fetc%2Fpasswd'), 400, 'invalid_sha');
    assert.is((await web.head('/api/v1/blobs/xyz')).status, 400);
    assertProblem(await web.uploadBlob(Buffer.from('abc'), 'nope'), 400, 'invalid_sha');
    const bytes = Buffer.from('the real bytes');
    const claimed = sha256('other bytes');
    assertProblem(await web.uploadBlob(bytes, claimed), 422, 'sha_mismatch');
    assert.is((await web.head(`/api/v1/blobs/${claimed}`)).status, 404);
    assert.is((await web.head(`/api/v1/blobs/${sha256(bytes)}`)).status, 404);
    assertProblem(
      await web.post('/api/v1/blobs', bytes, 'application/json', { 'x-content-sha256': sha256(bytes) }),
      415,
      'unsupported_media_type',
    );
  });

  test('BLOB_MAX_BYTES: 413 blob_too_large by Content-Length or while streaming; the service keeps serving', async ({ fixture }) => {
    const { client, service } = await soloService(fixture, { blobMaxBytes: 1024 });
    const big = Buffer.alloc(4096, 1);
    assertProblem(await client.uploadBlob(big), 413, 'blob_too_large');
    // A client still sending megabytes after the refusal reads the answer too.
    assertProblem(await client.uploadBlob(Buffer.alloc(6 * 1024 * 1024, 1)), 413, 'blob_too_large');
    // Chunked, no Content-Length: refused once the count passes the cap.
    const streamed = await chunkedUpload(`${service.url}/api/v1/blobs`, { ...client.headers(), 'x-content-sha256': sha256(big) }, big);
    assert.is(streamed.status, 413);
    assert.is(JSON.parse(streamed.body).code, 'blob_too_large');
    // ...while the body is still open: the gate holds a line until it ends, the cap does not wait for it.
    const open = await chunkedUpload(
      `${service.url}/api/v1/blobs`,
      { ...client.headers(), 'x-content-sha256': sha256(big) },
      Buffer.alloc(4096, 'z'),
      { end: false },
    );
    assert.is(open.status, 413);
    assert.is(JSON.parse(open.body).code, 'blob_too_large');
    const fits = Buffer.alloc(1024, 2);
    assert.is((await client.uploadBlob(fits)).status, 201);
    assert.is((await client.head(`/api/v1/blobs/${sha256(big)}`)).status, 404);
    await service.stop();
  });

  test('conversations: inline rows are verified, pointer rows need the blob, pull inlines small content only', async ({ fixture }) => {
    const { web } = fixture;
    const small = Buffer.from('{"role":"assistant","text":"hi"}\n');
    const inline = conversation(small, true);
    assert.is((await web.push('conversations', [inline])).json.inserted, 1);
    assertProblem(await web.push('conversations', [conversation(small, true, { size: 3 })]), 422, 'invalid_item');
    assertProblem(
      await web.push('conversations', [{ ...conversation(small, true), content_base64: Buffer.from('other').toString('base64') }]),
      422,
      'invalid_item',
    );
    assertProblem(await web.push('conversations', [conversation(small, true, { content_base64: 'not base64!' })]), 422, 'invalid_item');

    const large = Buffer.alloc(INLINE_BELOW + 10, 'y');
    const pointer = conversation(large, false);
    const missing = await web.push('conversations', [pointer]);
    assertProblem(missing, 409, 'blob_missing');
    assert.equal(
      missing.json.errors.map((error: { index: number }) => error.index),
      [0],
    );
    assert.is((await web.uploadBlob(large)).status, 201);
    assertProblem(await web.push('conversations', [{ ...pointer, size: 5 }]), 422, 'invalid_item');
    assert.is((await web.push('conversations', [pointer])).json.inserted, 1);
    // Same identity (conversation_id, content_sha256) again: a duplicate, even with other members.
    assert.is((await web.push('conversations', [{ ...pointer, ts: '2030-01-01T00:00:00Z' }])).json.duplicates, 1);

    const pulled = await web.pullAll('conversations');
    const smallBack = pulled.find((row) => row.conversation_id === inline.conversation_id);
    assert.is(smallBack.content_base64, small.toString('base64'));
    const largeBack = pulled.find((row) => row.conversation_id === pointer.conversation_id);
    assert.is(largeBack.content_base64, undefined, 'large content comes back as a pointer');
    assert.is(largeBack.content_sha256, sha256(large));
    // A pointer row to a blob another project holds is still missing here.
    assertProblem(await fixture.api.push('conversations', [pointer]), 409, 'blob_missing');
  });

  test('with the blob route off, large transcripts go inline both ways', async ({ fixture }) => {
    const { client, service } = await soloService(fixture, { disableRoutes: ['blobs'] });
    const large = Buffer.alloc(INLINE_BELOW * 2, 'z');
    const row = conversation(large, true);
    assert.is((await client.push('conversations', [row])).json.inserted, 1);
    const [back] = await client.pullAll('conversations');
    assert.is(back.content_base64, large.toString('base64'));
    // The bytes it holds from that upload also satisfy a later pointer row.
    assert.is((await client.push('conversations', [conversation(large, false)])).json.inserted, 1);
    await service.stop();
  });
}

/**
 * Sends the bytes in small chunked pieces (no Content-Length), stopping when the service answers;
 * `end: false` leaves the body open after them, and fails unless the service answers all the same.
 */
async function chunkedUpload(
  url: string,
  headers: Record<string, string>,
  bytes: Buffer,
  options: { end?: boolean } = {},
): Promise<{ status: number; body: string }> {
  const req = httpRequest(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' },
  });
  const answered = once(req, 'response') as Promise<[import('node:http').IncomingMessage]>;
  let stopped = false;
  void answered.then(() => (stopped = true));
  // The service closes the connection once it refuses: later writes may fail, and that is expected.
  req.on('error', () => (stopped = true));
  for (let offset = 0; offset < bytes.length && !stopped; offset += 256) {
    if (!req.write(bytes.subarray(offset, offset + 256))) await Promise.race([once(req, 'drain'), answered]).catch(() => {});
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (!stopped && options.end !== false) req.end();
  let timer: NodeJS.Timeout | undefined;
  const unanswered = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the service did not answer while the body was still open')), 30_000);
  });
  const [response] = await Promise.race([answered, unanswered]).finally(() => clearTimeout(timer));
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  req.destroy();
  return { status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') };
}
