import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, tempDir } from '../helpers/cli.js';
import { startService, stopAllServices } from '../helpers/service.js';
import { addConversation, machine } from '../helpers/sync-fixtures.js';
import { clientFor } from '../server/http.js';
import { tokenWithRole } from './support.js';

/**
 * Issue 31: a service restored from a backup taken before a forget holds the
 * forgotten rows again and lacks their tombstones; the next push or pull of a
 * client that knows them tells it again, and the rows go once more.
 */
test.after(async () => {
  await stopAllServices();
  cleanup();
});

test('a service restored from an older backup is told again by the next pull of a machine that knows the tombstones', async () => {
  const dataDir = join(tempDir(), 'data');
  const service = await startService({ dataDir });
  await service.createProject('acme', 'web');
  const admin = await tokenWithRole(service, { org: 'acme', project: 'web', name: 'ada', role: 'admin' });
  const a = await machine({ remoteUrl: `${service.url}/acme/web`, token: admin });
  addConversation(a, 'conv-x', Buffer.from('to be forgotten\n'));
  addConversation(a, 'conv-keep', Buffer.from('to be kept\n'));
  const pushed = await a.run(['push']);
  assert.is(pushed.code, 0, pushed.stderr);

  await service.stop();
  const backup = join(tempDir(), 'backup');
  cpSync(dataDir, backup, { recursive: true });
  await service.restart();

  const forget = await a.run(['forget', '--conversation', 'conv-x', '--yes']);
  assert.is(forget.code, 0, forget.stderr);
  const reader = clientFor(service, admin, 'acme', 'web');
  const served = async () => (await reader.pullAll('conversations')).map((row) => row.conversation_id).sort();
  assert.equal(await served(), ['conv-keep']);

  // The disk fails; the operator restores last night's backup.
  await service.stop();
  rmSync(dataDir, { recursive: true, force: true });
  cpSync(backup, dataDir, { recursive: true });
  await service.restart();
  assert.equal(await served(), ['conv-keep', 'conv-x'], 'the restored service holds it again');
  assert.is((await reader.get('/api/v1/tombstones')).json.count, 0);

  const pulled = await a.run(['pull']);
  assert.is(pulled.code, 0, pulled.stderr);
  assert.match(pulled.stderr, /\(tombstones_retold\)/);
  assert.equal(await served(), ['conv-keep'], 'told again, it forgot again');
  assert.is((await reader.get('/api/v1/tombstones')).json.count, 1);

  // A forged tombstone (not signed by this service) is refused, and changes nothing.
  const stone = (await reader.get('/api/v1/tombstones')).json.items[0];
  const forged = await reader.post(
    '/api/v1/tombstones',
    JSON.stringify({ items: [{ ...stone, identity: { conversation_id: 'conv-keep', content_sha256: stone.identity.content_sha256 } }] }),
    'application/json',
  );
  assert.is(forged.status, 422);
  assert.is(forged.json.code, 'invalid_item');
  assert.equal(await served(), ['conv-keep']);
});

test.run();
