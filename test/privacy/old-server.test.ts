import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/cli.js';
import { startService, stopAllServices } from '../helpers/service.js';
import { addConversation, addLedger, addTrace, machine, readRows } from '../helpers/sync-fixtures.js';
import { tokenWithRole } from './support.js';

/** Issue 31 against a service without tombstones (from before them): push, pull and forget go on, silently. */
test.after(async () => {
  await stopAllServices();
  cleanup();
});

test('a service without /api/v1/tombstones: push and pull work and say nothing of tombstones; forget still forgets here', async () => {
  const service = await startService({ disableRoutes: ['tombstones'] });
  await service.createProject('acme', 'web');
  const token = await tokenWithRole(service, { org: 'acme', project: 'web', name: 'ada', role: 'admin' });
  const a = await machine({ remoteUrl: `${service.url}/acme/web`, token });
  addConversation(a, 'conv-1', Buffer.from('hello\n'));
  addLedger(a, [addTrace(a, { conversation_id: 'conv-1' }).id]);
  for (const args of [['push'], ['pull']]) {
    const result = await a.run(args);
    assert.is(result.code, 0, result.stderr);
    assert.not.match(result.stderr, /tombstone|forgotten/);
  }
  const forget = await a.run(['forget', '--conversation', 'conv-1', '--yes']);
  assert.is(forget.code, 0, forget.stderr);
  assert.equal(readRows(join(a.dir, 'conversations.jsonl')), []);
});

test('a service that cannot forget: tracer forget says so and changes nothing; --local-only still forgets here', async () => {
  const service = await startService({ disableRoutes: ['tombstones', 'forget'] });
  await service.createProject('acme', 'web');
  const token = await tokenWithRole(service, { org: 'acme', project: 'web', name: 'ada', role: 'admin' });
  const a = await machine({ remoteUrl: `${service.url}/acme/web`, token });
  addConversation(a, 'conv-1', Buffer.from('hello\n'));
  const refused = await a.run(['forget', '--conversation', 'conv-1', '--yes']);
  assert.is.not(refused.code, 0);
  assert.match(refused.stderr, /\(forget_unsupported\)/);
  assert.is(readRows(join(a.dir, 'conversations.jsonl')).length, 1, 'nothing changed');
  const local = await a.run(['forget', '--conversation', 'conv-1', '--local-only', '--yes']);
  assert.is(local.code, 0, local.stderr);
  assert.equal(readRows(join(a.dir, 'conversations.jsonl')), []);
});

test.run();
