import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN, cleanEnv, cleanup, tempDir } from '../helpers/cli.js';

/**
 * node-fetch is loaded by the first request, never by a command that sends
 * nothing (BENCHMARKS.md: 35-50 ms of imports). A module hook in the child
 * notes every import of it. Needs `npm run build`.
 */
// Made in before(): other files' cleanup() removes every temp folder made so far.
let dir = '';
let log = '';
test.before(() => {
  dir = tempDir('tracer-lazy-fetch-');
  log = join(dir, 'resolved.log');
  const hooks = [
    "import { appendFileSync } from 'node:fs';",
    'export async function resolve(specifier, context, next) {',
    // The package, or the bundle of it that npm run build makes (scripts/build-http-bundle.mjs).
    `  if (specifier === 'node-fetch' || specifier.endsWith('/vendor/node-fetch.js')) appendFileSync(${JSON.stringify(log)}, specifier + '\\n');`,
    '  return next(specifier, context);',
    '}',
  ];
  writeFileSync(join(dir, 'hooks.mjs'), hooks.join('\n'));
  writeFileSync(
    join(dir, 'register.mjs'),
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`,
  );
});

/** What the child imported of node-fetch: '' when nothing. */
function fetchImports(args: string[]): string {
  if (existsSync(log)) writeFileSync(log, '');
  execFileSync(process.execPath, ['--import', join(dir, 'register.mjs'), ...args], {
    env: { ...cleanEnv(), TRACER_HOME: join(dir, 'home') },
    cwd: dir,
    stdio: 'pipe',
  });
  return existsSync(log) ? readFileSync(log, 'utf8') : '';
}

test.after(() => cleanup());

test('commands that send nothing do not load node-fetch', () => {
  assert.is(fetchImports([BIN, '--version']), '');
  assert.is(fetchImports([BIN, 'plugins']), '');
});

test('the first request loads it, as the one-module bundle npm run build made (the hook does see it)', () => {
  const script = `const { HttpClient } = await import(${JSON.stringify(pathToFileURL(join(BIN, '../../dist/net/http-client.js')).href)});
const wording = { refusal: () => new Error('refused'), unreachable: () => 'unreachable', timedOut: () => 'timed out', notJson: () => 'not JSON' };
const client = new HttpClient({ baseUrl: 'http://127.0.0.1:1', headers: {}, wording, settings: { retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 1 }, timeoutMs: 1000, transferTimeoutMs: 1000 } });
await client.getJson('/').catch(() => {});
client.close();`;
  assert.match(fetchImports(['--input-type=module', '-e', script]), /\/vendor\/node-fetch\.js\n/);
});

test('https and zlib load on first use: not for an http:// remote, and an https:// one still answers', async () => {
  // A self-signed certificate for 127.0.0.1, trusted by the child through NODE_EXTRA_CA_CERTS.
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  const { createServer } = await import('node:https');
  const server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_, response) => {
    response.setHeader('content-type', 'application/json');
    response.end('{"over":"tls"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  try {
    const script = `const { HttpClient } = await import(${JSON.stringify(pathToFileURL(join(BIN, '../../dist/net/http-client.js')).href)});
const wording = { refusal: () => new Error('refused'), unreachable: () => 'unreachable', timedOut: () => 'timed out', notJson: () => 'not JSON' };
const settings = { retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 1 }, timeoutMs: 5000, transferTimeoutMs: 5000 };
const loaded = (name) => process.moduleLoadList.includes('NativeModule ' + name);
const plain = new HttpClient({ baseUrl: 'http://127.0.0.1:1', headers: {}, wording, settings });
await plain.getJson('/').catch(() => {});
plain.close();
const before = { https: loaded('https'), tls: loaded('tls'), zlib: loaded('zlib') };
const secure = new HttpClient({ baseUrl: 'https://127.0.0.1:${port}', headers: {}, wording, settings });
const body = await secure.getJson('/');
secure.close();
console.log(JSON.stringify({ before, body, after: { https: loaded('https') } }));`;
    const { execFile } = await import('node:child_process');
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ['--input-type=module', '-e', script],
        { env: { ...cleanEnv(), NODE_EXTRA_CA_CERTS: cert }, cwd: dir },
        (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out)),
      ),
    );
    const result = JSON.parse(stdout);
    assert.equal(result.before, { https: false, tls: false, zlib: false }, 'a request to an http:// remote loads none of them');
    assert.equal(result.body, { over: 'tls' });
    assert.is(result.after.https, true);
  } finally {
    server.close();
  }
});

test.run();
