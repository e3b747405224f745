import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN, cleanEnv, cleanup, tempDir } from '../helpers/cli.js';
import { modulesIn } from '../helpers/build-meta.js';

/**
 * node-fetch is loaded by the first request, never by a command that sends
 * nothing (BENCHMARKS.md: 35-50 ms of imports). A module hook in the child
 * notes every file it loads, mapped to the modules each holds (dist/meta.json).
 * Needs `npm run build`: the built program, with node-fetch compiled in.
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
    '  const resolved = await next(specifier, context);',
    `  if (resolved.url.startsWith('file:')) appendFileSync(${JSON.stringify(log)}, resolved.url + '\\n');`,
    '  return resolved;',
    '}',
  ];
  writeFileSync(join(dir, 'hooks.mjs'), hooks.join('\n'));
  writeFileSync(
    join(dir, 'register.mjs'),
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`,
  );
});

/** The files of node-fetch the child loaded, from the build's or the package's: none, when it sent nothing. */
function fetchImports(args: string[]): string[] {
  if (existsSync(log)) writeFileSync(log, '');
  execFileSync(process.execPath, ['--import', join(dir, 'register.mjs'), ...args], {
    env: { ...cleanEnv(), TRACER_HOME: join(dir, 'home') },
    cwd: dir,
    stdio: 'pipe',
  });
  const urls = existsSync(log)
    ? [
        ...new Set(
          readFileSync(log, 'utf8')
            .split('\n')
            .filter((line) => line !== ''),
        ),
      ]
    : [];
  return [...urls.filter((url) => url.includes('/node_modules/node-fetch/')), ...modulesIn(urls)].filter((module) =>
    module.includes('node-fetch/'),
  );
}

/** A transport from the package's `tracer/protocol` (dist/protocol/index.js), as the HTTP plugin opens one. */
const TRANSPORT = `const { createHttpTransport } = await import(${JSON.stringify(pathToFileURL(join(BIN, '../../dist/protocol/index.js')).href)});
const transport = (url) => {
  const target = { url: url + '/acme/web', base_url: url, org_slug: 'acme', project_slug: 'web', mount: 'direct' };
  return createHttpTransport({ name: 'origin', record: { url: target.url }, target, token: 't', tokenSource: '--token' }, { quick: true }, { TRACER_HTTP_ATTEMPTS: '1' });
};`;

test.after(() => cleanup());

test('commands that send nothing do not load node-fetch', () => {
  assert.equal(fetchImports([BIN, '--version']), []);
  assert.equal(fetchImports([BIN, 'plugins']), []);
});

test('the first request loads it, compiled into the build (the hook does see it)', () => {
  const script = `${TRANSPORT}
await transport('http://127.0.0.1:1').identify().catch(() => {});`;
  assert.ok(fetchImports(['--input-type=module', '-e', script]).includes('node_modules/node-fetch/src/index.js'));
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
  let requests = 0;
  const server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_, response) => {
    requests += 1;
    response.setHeader('content-type', 'application/json');
    response.end('{"over":"tls"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  try {
    const script = `${TRANSPORT}
const loaded = (name) => process.moduleLoadList.includes('NativeModule ' + name);
await transport('http://127.0.0.1:1').identify().catch(() => {});
const before = { https: loaded('https'), tls: loaded('tls'), zlib: loaded('zlib') };
const answer = await transport('https://127.0.0.1:${port}').identify().then(() => 'identified', (error) => error.code);
console.log(JSON.stringify({ before, answer, after: { https: loaded('https') } }));`;
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
    assert.is(requests, 1, `the request went over TLS (${result.answer})`);
    assert.is(result.after.https, true);
  } finally {
    server.close();
  }
});

test.run();
