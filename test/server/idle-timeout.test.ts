import { connect } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/cli.js';
import { startService, stopAllServices } from '../helpers/service.js';

/** A client that stops sending mid-body must not hold a connection forever. */
test.after(async () => {
  await stopAllServices();
  cleanup();
});

function stalledUpload(url: string, token: string): Promise<{ closed: boolean; answer: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let answer = '';
    const giveUp = setTimeout(() => {
      socket.destroy();
      resolve({ closed: false, answer });
    }, 10_000);
    socket.on('data', (chunk) => (answer += chunk.toString('utf8')));
    socket.on('close', () => {
      clearTimeout(giveUp);
      resolve({ closed: true, answer });
    });
    socket.on('error', () => undefined);
    socket.write(
      `POST /api/v1/sync/traces HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${token}\r\n` +
        'X-Tracer-Org: acme\r\nX-Tracer-Project: web\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"items": [',
    );
  });
}

test('a stalled request body is cut once the connection has been idle for --idle-timeout-ms', async () => {
  const service = await startService({ idleTimeoutMs: 300 });
  await service.createProject('acme', 'web');
  const token = await service.createToken({ org: 'acme', project: 'web' });
  const stalled = await stalledUpload(service.url, token);
  assert.ok(stalled.closed, 'the service closed the stalled connection');
  assert.not.match(stalled.answer, /^HTTP\/1\.1 2/, 'nothing was accepted');
  const health = await fetch(`${service.url}/healthz`);
  assert.is(health.status, 200, 'the service keeps serving');
});

test('an upload that keeps sending is not cut, however long it takes', async () => {
  const service = await startService({ idleTimeoutMs: 300 });
  await service.createProject('acme', 'web');
  const token = await service.createToken({ org: 'acme', project: 'web' });
  const { Readable } = await import('node:stream');
  const body = '{"items": []}';
  let sent = 0;
  // One byte every 100 ms: ~1.3 s in all, four times the idle timeout.
  const slow = new Readable({
    read() {
      setTimeout(() => this.push(sent < body.length ? body[sent++] : null), 100);
    },
  });
  const response = await fetch(`${service.url}/api/v1/sync/traces`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'x-tracer-org': 'acme',
      'x-tracer-project': 'web',
      'content-type': 'application/json',
      'content-length': String(body.length),
    },
    body: Readable.toWeb(slow) as ReadableStream,
    duplex: 'half',
  } as RequestInit);
  assert.is(response.status, 200, await response.text());
});

test.run();
