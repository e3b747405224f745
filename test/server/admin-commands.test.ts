import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, runMain, tempDir } from '../helpers/cli.js';
import { startService, stopAllServices } from '../helpers/service.js';
import { clientFor } from './http.js';

/** `tracer project create` and `tracer token create`, the built binary against a real service. */
test.after(async () => {
  await stopAllServices();
  cleanup();
});

// Made when the suite starts, not at import: uvu imports every test file first, and
// an earlier suite's cleanup() would remove a folder made at import time.
let home: string;
test.before(() => {
  home = tempDir('tracer-admin-cmd-');
});
const tracer = (args: string[], env: Record<string, string> = {}) => runMain(args, { cwd: home, home, env });

test('project create registers the URL’s project once, standalone or behind the gateway form', async () => {
  const service = await startService();
  const env = { TRACER_ADMIN_SECRET: service.adminSecret! };
  const created = await tracer(['project', 'create', `${service.url}/acme/web`], env);
  assert.is(created.code, 0, created.stderr);
  assert.match(created.stdout, `Created project acme/web on ${service.url}`);
  const again = await tracer(['project', 'create', `${service.url}/gw/acme/web`], env);
  assert.is(again.code, 0, again.stderr);
  assert.match(again.stdout, 'already exists; nothing changed');
});

test('token create prints a working token once: project scope by default, org scope with --org-wide', async () => {
  const service = await startService();
  await service.createProject('acme', 'web');
  const env = { TRACER_ADMIN_SECRET: service.adminSecret! };
  const project = await tracer(['token', 'create', `${service.url}/acme/web`, '--name', 'laptop'], env);
  assert.is(project.code, 0, project.stderr);
  const token = project.stdout.trim();
  assert.match(token, /^trc_[A-Za-z0-9_-]{43}$/);
  assert.match(project.stderr, 'shown only this once');
  const who = await clientFor(service, token, 'acme', 'web').get('/api/v1/auth/whoami');
  assert.equal(who.json, { org_slug: 'acme', project_slug: 'web', scope: 'project', token_name: 'laptop', role: 'read' });
  const org = await tracer(['token', 'create', `${service.url}/acme/web`, '--org-wide'], env);
  const orgWho = await clientFor(service, org.stdout.trim(), 'acme', 'web').get('/api/v1/auth/whoami');
  assert.equal(orgWho.json, { org_slug: 'acme', project_slug: null, scope: 'org', token_name: 'tracer-cli', role: 'read' });
  const unknown = await tracer(['token', 'create', `${service.url}/acme/nope`], env);
  assert.is(unknown.code, 7, unknown.stderr);
  assert.match(unknown.stderr, '(project_not_found)');
});

test('admin commands fail clearly: no secret, wrong secret, admin off, bad URL, nothing listening', async () => {
  const service = await startService();
  const off = await startService({ adminSecret: null });
  const cases: Array<[string[], Record<string, string>, string, number]> = [
    [['project', 'create', `${service.url}/acme/web`], {}, 'admin_secret_missing', 4],
    [['project', 'create', `${service.url}/acme/web`], { TRACER_ADMIN_SECRET: 'wrong' }, 'admin_secret_rejected', 4],
    [['token', 'create', `${service.url}/acme/web`], { TRACER_ADMIN_SECRET: 'wrong' }, 'admin_secret_rejected', 4],
    [['project', 'create', `${off.url}/acme/web`], { TRACER_ADMIN_SECRET: 'x' }, 'admin_disabled', 4],
    [['project', 'create', service.url], { TRACER_ADMIN_SECRET: 'x' }, 'invalid_remote_url', 2],
    [['project', 'create', 'http://127.0.0.1:1/acme/web'], { TRACER_ADMIN_SECRET: 'x' }, 'network_error', 5],
    [['token', 'create', `${service.url}/acme/web`, '--name', ' spaced'], { TRACER_ADMIN_SECRET: 'x' }, 'invalid_usage', 2],
  ];
  const results = await Promise.all(cases.map(([args, env]) => tracer(args, env)));
  cases.forEach(([args, , code, exit], index) => {
    const result = results[index]!;
    assert.is(result.code, exit, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, `(${code})`);
  });
});

test.run();
