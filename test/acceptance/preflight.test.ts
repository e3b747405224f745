import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/cli.js';
import { startService, stopAllServices } from '../helpers/service.js';
import { machine } from '../helpers/sync-fixtures.js';

/** The whoami pre-flight in remote add and project create (spec §4.4). */
test.after(async () => {
  await stopAllServices();
  cleanup();
});

const remotes = (dir: string) =>
  existsSync(join(dir, 'remotes.json')) ? JSON.parse(readFileSync(join(dir, 'remotes.json'), 'utf8')).remotes : {};

test('remote add refuses a token of another org or project before writing anything', async () => {
  const service = await startService();
  await service.createProject('acme', 'web');
  await service.createProject('acme', 'api');
  await service.createProject('other', 'web');
  const m = await machine();
  const foreign = await service.createToken({ org: 'other', project: 'web' });
  const refused = await m.run(['remote', 'add', 'origin', `${service.url}/acme/web`, '--token', foreign]);
  assert.is(refused.code, 6);
  assert.match(refused.stderr, '(org_slug_mismatch)');
  assert.equal(remotes(m.dir), {});
  const apiToken = await service.createToken({ org: 'acme', project: 'api' });
  const scoped = await m.run(['remote', 'add', 'origin', `${service.url}/acme/web`, '--token-env', 'API_TOKEN'], {
    env: { API_TOKEN: apiToken },
  });
  assert.is(scoped.code, 6);
  assert.match(scoped.stderr, '(project_scope_mismatch)');
  const good = await m.run([
    'remote',
    'add',
    'origin',
    `${service.url}/acme/web`,
    '--token',
    await service.createToken({ org: 'acme', project: 'web' }),
  ]);
  assert.is(good.code, 0, good.stderr);
  assert.is(good.stderr, '');
  assert.ok(remotes(m.dir).origin);
});

test('remote add on an old or unreachable server adds the remote with a warning', async () => {
  const old = await startService({ disableRoutes: ['whoami'] });
  await old.createProject('acme', 'web');
  const m = await machine();
  const added = await m.run([
    'remote',
    'add',
    'origin',
    `${old.url}/acme/web`,
    '--token',
    await old.createToken({ org: 'acme', project: 'web' }),
  ]);
  assert.is(added.code, 0, added.stderr);
  assert.match(added.stderr, '(whoami_unsupported)');
  const offline = await m.run(['remote', 'add', 'later', 'http://127.0.0.1:9/acme/web', '--token', 'some-token']);
  assert.is(offline.code, 0, offline.stderr);
  assert.match(offline.stderr, '(scope_unchecked)');
  assert.match(offline.stderr, 'tracer doctor');
  // A server that answers and refuses the token says so, and what to do.
  const current = await startService();
  await current.createProject('acme', 'web');
  const refused = await m.run(['remote', 'add', 'bogus', `${current.url}/acme/web`, '--token', 'trc_not-a-token']);
  assert.is(refused.code, 0, refused.stderr);
  assert.match(refused.stderr, /refused this token \(unauthorized\).*tracer remote set-token bogus --token <TOKEN>\. \(scope_unchecked\)/);
  // A token variable not set here: added, and said that nothing was checked.
  const unset = await m.run(['remote', 'add', 'ci', `${current.url}/acme/web`, '--token-env', 'TRACER_TEST_UNSET_TOKEN']);
  assert.is(unset.code, 0, unset.stderr);
  assert.match(unset.stderr, /TRACER_TEST_UNSET_TOKEN is not set here, so the token's scope was not checked.*\(scope_unchecked\)/);
});

test('project create runs the pre-flight with the token of the remote for that URL', async () => {
  const service = await startService();
  await service.createProject('other', 'web');
  const good = await service.createToken({ org: 'other', project: 'web' });
  const m = await machine({ remoteUrl: `${service.url}/other/web`, token: good });
  const env = { TRACER_ADMIN_SECRET: service.adminSecret! };
  assert.is((await m.run(['remote', 'set-url', 'origin', `${service.url}/acme/web`])).code, 0);
  const refused = await m.run(['project', 'create', `${service.url}/acme/web`], { env });
  assert.is(refused.code, 6);
  assert.match(refused.stderr, '(org_slug_mismatch)');
  const elsewhere = await m.run(['project', 'create', `${service.url}/acme/api`], { env });
  assert.is(elsewhere.code, 0, elsewhere.stderr);
});

test('remote add --create registers the project with TRACER_ADMIN_SECRET, after the pre-flight, and adds nothing when that fails', async () => {
  const service = await startService();
  const m = await machine();
  await service.createProject('acme', 'web');
  const token = await service.createToken({ org: 'acme' }); // org-wide: the new project has no token of its own yet
  const url = `${service.url}/acme/fresh`;

  const noSecret = await m.run(['remote', 'add', 'origin', url, '--token', token, '--create']);
  assert.is.not(noSecret.code, 0);
  assert.match(noSecret.stderr, '(admin_secret_missing)');
  assert.equal(remotes(m.dir), {}, 'nothing is written when the project cannot be registered');

  const created = await m.run(['remote', 'add', 'origin', url, '--token', token, '--create'], {
    env: { TRACER_ADMIN_SECRET: service.adminSecret! },
  });
  assert.is(created.code, 0, created.stderr);
  assert.match(created.stdout, 'project: created');
  assert.ok(remotes(m.dir).origin);
  assert.not.ok(
    created.stdout.includes(service.adminSecret!) || created.stderr.includes(service.adminSecret!),
    'the admin secret is never printed',
  );

  const again = await m.run(['remote', 'add', 'second', url, '--token', token, '--create'], {
    env: { TRACER_ADMIN_SECRET: service.adminSecret! },
  });
  assert.is(again.code, 0, again.stderr);
  assert.match(again.stdout, 'project: already registered');

  const foreign = await m.run(['remote', 'add', 'third', `${service.url}/other/fresh`, '--token', token, '--create'], {
    env: { TRACER_ADMIN_SECRET: service.adminSecret! },
  });
  assert.is(foreign.code, 6, 'the pre-flight refuses before the project is created');
  assert.match(foreign.stderr, '(org_slug_mismatch)');
  const register = await fetch(`${service.url}/api/v1/admin/projects`, {
    method: 'POST',
    headers: { authorization: `Bearer ${service.adminSecret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ org_slug: 'other', project_slug: 'fresh' }),
  });
  assert.is(register.status, 201, 'other/fresh did not exist yet: the refused command created nothing');
});

test.run();
