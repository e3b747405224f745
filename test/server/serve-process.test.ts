import { request as httpRequest, type IncomingMessage } from 'node:http';
import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, runTracer, tempDir } from '../helpers/cli.js';
import { postgresAvailable, spawnService, stopAllServices, type ServiceHandle } from '../helpers/service.js';
import { clientFor, sha256, trace } from './http.js';

/** `tracer serve` as a real process: start-up line, logs, signals, bad flags. Runs the built binary. */
test.after(async () => {
  await stopAllServices();
  cleanup();
});

async function waitFor(what: string, condition: () => boolean | Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 2000; attempt++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** Starts a blob upload of `total` bytes and sends only the first `sent`; returns a function that sends the rest. */
async function halfUpload(service: ServiceHandle, token: string, bytes: Buffer, sent: number) {
  const req = httpRequest(`${service.url}/api/v1/blobs`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'x-tracer-org': 'acme',
      'x-tracer-project': 'web',
      'content-type': 'application/octet-stream',
      'content-length': String(bytes.length),
      'x-content-sha256': sha256(bytes),
    },
  });
  req.on('error', () => {});
  const response = once(req, 'response') as Promise<[IncomingMessage]>;
  // A killed service never answers; only finish() awaits the answer.
  response.catch(() => {});
  req.write(bytes.subarray(0, sent));
  await waitFor('the service to log the upload', () => service.output().stdout.includes('"url":"/api/v1/blobs"'));
  return {
    finish: async () => {
      req.end(bytes.subarray(sent));
      const [res] = await response;
      let body = '';
      for await (const chunk of res) body += chunk;
      return { status: res.statusCode, body };
    },
  };
}

test('the first line says where it listens, the backend and where data lives; logs carry request ids, never the token', async () => {
  const service = await spawnService({ logLevel: 'info' });
  const [first] = service.output().stdout.split('\n');
  assert.match(
    first!,
    new RegExp(`^tracer serve listening on ${service.url}, backend sqlite, data in ${service.dataDir}, admin routes on$`),
  );
  await service.createProject('acme', 'web');
  const token = await service.createToken({ org: 'acme', project: 'web' });
  const reply = await clientFor(service, token, 'acme', 'web').push('traces', [trace()]);
  const requestId = reply.headers.get('x-request-id')!;
  await waitFor('the request log', () => service.output().stdout.includes(`"reqId":"${requestId}"`));
  const everything = service.output().stdout + service.output().stderr;
  assert.not.ok(everything.includes(token), 'the token is never logged');
  assert.not.ok(everything.includes(service.adminSecret!), 'the admin secret is never logged');
  await service.stop();
  assert.is(service.exitCode(), 0);
});

test('admin routes off: the start-up line says so', async () => {
  const service = await spawnService({ adminSecret: null });
  assert.match(service.output().stdout.split('\n')[0]!, /admin routes off \(set TRACER_ADMIN_SECRET to enable them\)$/);
  await service.stop();
});

test('SIGTERM: no new connections, the in-flight upload finishes, the database closes, exit 0', async () => {
  const service = await spawnService({ logLevel: 'info' });
  await service.createProject('acme', 'web');
  const token = await service.createToken({ org: 'acme', project: 'web' });
  const bytes = Buffer.alloc(64 * 1024, 3);
  const upload = await halfUpload(service, token, bytes, 1000);
  const stopped = service.stop();
  await waitFor('the SIGTERM line', () => service.output().stdout.includes('SIGTERM: finishing in-flight requests'));
  const refused = await fetch(`${service.url}/healthz`).then(
    () => false,
    () => true,
  );
  assert.ok(refused, 'no new connection is accepted once stopping');
  const finished = await upload.finish();
  assert.is(finished.status, 201, finished.body);
  await stopped;
  assert.is(service.exitCode(), 0);
  assert.match(service.output().stdout, /tracer serve stopped/);
  await service.restart();
  const head = await clientFor(service, token, 'acme', 'web').head(`/api/v1/blobs/${sha256(bytes)}`);
  assert.is(head.status, 200, 'the upload that was in flight is stored');
  await service.stop();
});

test('SIGKILL mid-upload leaves nothing half-written', async () => {
  const backends: Array<'sqlite' | 'postgres'> = (await postgresAvailable()) ? ['sqlite', 'postgres'] : ['sqlite'];
  for (const backend of backends) {
    const service = await spawnService({ backend, logLevel: 'info' });
    await service.createProject('acme', 'web');
    const token = await service.createToken({ org: 'acme', project: 'web' });
    const client = clientFor(service, token, 'acme', 'web');
    const kept = trace();
    await client.push('traces', [kept]);
    const bytes = Buffer.alloc(600 * 1024, 9);
    await halfUpload(service, token, bytes, 300 * 1024);
    await service.kill();
    await service.restart();
    assert.is((await client.head(`/api/v1/blobs/${sha256(bytes)}`)).status, 404, `${backend}: no partial blob`);
    assert.equal(
      (await client.pullAll('traces')).map((row) => row.id),
      [kept.id],
      `${backend}: rows intact`,
    );
    assert.is((await client.uploadBlob(bytes)).status, 201);
    if (backend === 'sqlite') {
      const sha = sha256(bytes);
      assert.equal(
        readdirSync(join(service.dataDir, 'blobs', sha.slice(0, 2))),
        [sha],
        'the temp file of the killed upload is removed when the client sends that blob again',
      );
    }
    await service.stop();
  }
});

test('bad settings are refused before listening, with a code and the usage exit code', async () => {
  const home = tempDir('tracer-serve-flags-');
  const run = (args: string[], env: Record<string, string> = {}) => runTracer(['serve', ...args], { cwd: home, home, env });
  const cases: Array<[string[], Record<string, string>, string, number]> = [
    [['--port', 'abc'], {}, 'invalid_option_value', 2],
    [[], { TRACER_SERVE_PORT: '70000' }, 'invalid_option_value', 2],
    [[], { BLOB_MAX_BYTES: '-1' }, 'invalid_option_value', 2],
    [['--disable-route', 'nope'], {}, 'unknown_route', 2],
    [['--database', 'mysql://db/x'], {}, 'invalid_database_url', 2],
    [['--log-level', 'loud'], {}, 'invalid_log_level', 2],
    [['--port', '0', '--database', 'postgres://postgres@127.0.0.1:1/none'], {}, 'database_unavailable', 5],
  ];
  const results = await Promise.all(cases.map(([args, env]) => run(args, env)));
  cases.forEach(([args, env, code, exit], index) => {
    const result = results[index]!;
    assert.is(result.code, exit, `${args.join(' ')} ${JSON.stringify(env)}: ${result.stderr}`);
    assert.match(result.stderr, `(${code})`);
  });
});

test('a port in use is reported as address_in_use', async () => {
  const service = await spawnService();
  const home = tempDir('tracer-serve-port-');
  const result = await runTracer(['serve', '--port', new URL(service.url).port, '--data-dir', join(home, 'data')], { cwd: home, home });
  assert.is(result.code, 3, result.stderr);
  assert.match(result.stderr, '(address_in_use)');
  await service.stop();
});

test.run();
