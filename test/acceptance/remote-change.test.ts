import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/cli.js';
import { startService, stopAllServices } from '../helpers/service.js';
import { addLedger, addTrace, machine, syncState } from '../helpers/sync-fixtures.js';

/**
 * The manifest says what one server holds. When a remote's name comes to mean
 * another server, trusting it would leave data unpushed for good.
 */
test.after(async () => {
  await stopAllServices();
  cleanup();
});

const pushed = async (m: Awaited<ReturnType<typeof machine>>, ...args: string[]) => {
  const result = await m.run(['push', '--json', ...args]);
  assert.is(result.code, 0, result.stderr);
  return JSON.parse(result.stdout).push.totals as { sent: number; inserted: number };
};

test('set-url to another server: the next push sends everything there; rename keeps the manifest; remove forgets it', async () => {
  const first = await startService();
  const second = await startService();
  for (const service of [first, second]) await service.createProject('acme', 'web');
  const m = await machine({ remoteUrl: `${first.url}/acme/web`, token: await first.createToken({ org: 'acme', project: 'web' }) });
  const trace = addTrace(m);
  addLedger(m, [trace.id]);

  assert.is((await pushed(m)).inserted, 2);
  assert.is(syncState(m).remotes.origin.url, `${first.url}/acme/web`, 'the record names the server it describes');

  const secondToken = await second.createToken({ org: 'acme', project: 'web' });
  assert.is((await m.run(['remote', 'set-url', 'origin', `${second.url}/acme/web`])).code, 0);
  assert.is((await m.run(['remote', 'set-token', 'origin', '--token', secondToken])).code, 0);
  const moved = await pushed(m);
  assert.is(moved.inserted, 2, 'the new server receives everything the old manifest listed');
  assert.is(syncState(m).remotes.origin.url, `${second.url}/acme/web`);

  assert.is((await m.run(['remote', 'rename', 'origin', 'main'])).code, 0);
  assert.equal(Object.keys(syncState(m).remotes), ['main'], 'the record follows the rename');
  assert.is((await pushed(m)).sent, 0, 'nothing is re-sent after a rename');

  assert.is((await m.run(['remote', 'remove', 'main'])).code, 0);
  assert.equal(syncState(m).remotes, {}, 'a removed remote leaves no record behind');
});

test.run();
