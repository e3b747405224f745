import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, runTracer, tempDir } from '../helpers/cli.js';
import { startService, stopAllServices } from '../helpers/service.js';
import { addConversation, addLedger, addTrace, machine } from '../helpers/sync-fixtures.js';

/** Issue 31 from the command line: token create --role, and a push token's pull stopped with role_forbids. */
test.after(async () => {
  await stopAllServices();
  cleanup();
});

test('tracer token create --role push makes an upload-only token: push works, pull prints role_forbids and exits non-zero', async () => {
  const service = await startService();
  await service.createProject('acme', 'web');
  const url = `${service.url}/acme/web`;
  const created = await runTracer(['token', 'create', url, '--role', 'push', '--name', 'ci'], {
    cwd: tempDir(),
    home: tempDir(),
    env: { TRACER_ADMIN_SECRET: service.adminSecret },
  });
  assert.is(created.code, 0, created.stderr);
  assert.match(created.stderr, /role push/);
  const token = created.stdout.trim();
  const whoami = (await (await fetch(`${service.url}/api/v1/auth/whoami`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
    role: string;
  };
  assert.is(whoami.role, 'push');

  const defaulted = await runTracer(['token', 'create', url, '--name', 'laptop'], {
    cwd: tempDir(),
    home: tempDir(),
    env: { TRACER_ADMIN_SECRET: service.adminSecret },
  });
  assert.match(defaulted.stderr, /role read/, 'read is the default');
  const bad = await runTracer(['token', 'create', url, '--role', 'owner'], {
    cwd: tempDir(),
    home: tempDir(),
    env: { TRACER_ADMIN_SECRET: service.adminSecret },
  });
  assert.is(bad.code, 2);

  const m = await machine({ remoteUrl: url, token });
  addConversation(m, 'conv-1', Buffer.from('hello\n'));
  addLedger(m, [addTrace(m, { conversation_id: 'conv-1' }).id]);
  const push = await m.run(['push']);
  assert.is(push.code, 0, push.stderr);
  const pull = await m.run(['pull']);
  assert.is.not(pull.code, 0);
  assert.match(pull.stderr, /\(role_forbids\)/);
  assert.match(pull.stderr, /role read/);
});

test('tracer token revoke stops every token of that name, and says when there was none', async () => {
  const service = await startService();
  await service.createProject('acme', 'web');
  const url = `${service.url}/acme/web`;
  const env = { TRACER_ADMIN_SECRET: service.adminSecret };
  const token = await service.createToken({ org: 'acme', project: 'web', name: 'laptop' });
  const whoami = () => fetch(`${service.url}/api/v1/auth/whoami`, { headers: { authorization: `Bearer ${token}` } });
  assert.is((await whoami()).status, 200);
  const revoked = await runTracer(['token', 'revoke', url, '--name', 'laptop'], { cwd: tempDir(), home: tempDir(), env });
  assert.is(revoked.code, 0, revoked.stderr);
  assert.match(revoked.stdout, /Revoked 1 token named "laptop" for project acme\/web/);
  assert.is((await whoami()).status, 401);
  const again = await runTracer(['token', 'revoke', url, '--name', 'laptop'], { cwd: tempDir(), home: tempDir(), env });
  assert.match(again.stdout, /nothing changed/);
  const noSecret = await runTracer(['token', 'revoke', url, '--name', 'laptop'], { cwd: tempDir(), home: tempDir() });
  assert.match(noSecret.stderr, /\(admin_secret_missing\)/);
});

test.run();
