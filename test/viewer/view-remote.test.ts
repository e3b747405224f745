import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/cli.js';
import { spawnService, stopAllServices } from '../helpers/service.js';
import { machine } from '../helpers/sync-fixtures.js';

/** `tracer view --remote <name>`: the team view's URL of the current project's remote, printed (and opened), no local server. */

test.after(async () => {
  await stopAllServices();
  cleanup();
});

test('view --remote prints the team view of the remote project, which answers with its sign-in', async () => {
  const service = await spawnService();
  await service.createProject('acme', 'app');
  const token = await service.createToken({ org: 'acme', project: 'app' });
  const m = await machine({ remoteUrl: `${service.url}/acme/app`, token });
  const result = await m.run(['view', '--remote', 'origin', '--no-open']);
  assert.is(result.code, 0, result.stderr);
  const url = result.stdout.trim();
  assert.is(url, `${service.url}/ui/p/acme/app`);
  assert.not.ok(url.includes(token), 'the token is never in the URL');
  const page = await fetch(url, { redirect: 'manual' });
  assert.is(page.status, 401);
  assert.match(await page.text(), /name="token"/);
});

test('a gateway remote opens the same page on its host', async () => {
  const m = await machine({ remoteUrl: 'https://traces.example.com:8443/gw/acme/web' });
  const result = await m.run(['view', '--remote', 'origin', '--no-open']);
  assert.is(result.code, 0, result.stderr);
  assert.is(result.stdout.trim(), 'https://traces.example.com:8443/ui/p/acme/web');
});

test('an unknown remote, or --remote with a local viewer flag, is refused with its code', async () => {
  const m = await machine({ remoteUrl: 'https://traces.example.com/acme/web' });
  const unknown = await m.run(['view', '--remote', 'nope', '--no-open']);
  assert.is.not(unknown.code, 0);
  assert.match(unknown.stderr, /remote_not_found/);
  const clash = await m.run(['view', '--remote', 'origin', '--port', '8790', '--no-open']);
  assert.is.not(clash.code, 0);
  assert.match(clash.stderr, /remote_view_conflict/);
  assert.match(clash.stderr, /--port/);
});

test.run();
