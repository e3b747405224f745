import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, sandbox, tempDir } from '../helpers/cli.js';
import { assertOk, assertOneLineError } from './expect.js';

test.after(cleanup);

test('config get/set/unset/list for project settings, unknown keys refused with the known ones', async () => {
  const { home, run } = sandbox();
  assertOneLineError(await run(['config', 'list']), 'project_not_initialized', 3);
  const init = await run(['init']);
  assertOk(init);
  const id = /tracer project (\S+)/.exec(init.stdout)![1]!;
  const projectConfig = () => JSON.parse(readFileSync(join(home, 'projects', id, 'project-config.json'), 'utf8'));

  assertOk(await run(['config', 'set', 'notes', 'payments service']));
  const fixture = join(tempDir('tracer-plugin-'), 'mine.mjs');
  writeFileSync(fixture, "export default { name: 'mine', apply() {} };\n");
  assertOk(await run(['config', 'set', 'plugins', `!summaries, ${fixture}`]));
  assert.equal(projectConfig(), { notes: 'payments service', plugins: ['!summaries', fixture] });
  const missing = await run(['config', 'set', 'plugins', './missing.mjs']);
  assertOneLineError(missing, 'invalid_plugin', 2);
  assert.match(missing.stderr, /the plugins setting was not changed/);
  assert.equal(projectConfig().plugins, ['!summaries', fixture], 'a plugin that does not load is refused before it can lock tracer');

  const got = await run(['config', 'get', 'notes']);
  assertOk(got);
  assert.is(got.stdout, 'payments service\n');
  assert.is((await run(['config', 'get', 'summary'])).code, 1, 'an unset key exits 1');

  const list = await run(['config', 'list']);
  assertOk(list);
  assert.match(list.stdout, /^notes\s+payments service\s+# Free-form notes/m);
  assert.match(list.stdout, /^summary\s+\(unset\)\s+# /m);
  assert.match(list.stdout, /^remote\.default\s+\(unset\)\s+# Remote used when --remote is not given\./m);
  assert.ok(list.stdout.includes(`plugins         ${JSON.stringify(['!summaries', fixture])}`));
  const rows = JSON.parse((await run(['config', 'list', '--json'])).stdout);
  assert.equal(
    rows.map((row: { key: string }) => row.key),
    ['notes', 'summary', 'remote.default', 'plugins', 'commit_summary', 'redact.pii'],
  );

  const unset = await run(['config', 'unset', 'notes']);
  assertOk(unset);
  assert.is(unset.stdout, 'Unset notes\n');
  assert.is((await run(['config', 'unset', 'notes'])).stdout, 'notes was not set\n');
  assertOk(await run(['config', 'unset', 'plugins']));
  assert.equal(projectConfig(), {});

  for (const args of [
    ['config', 'get', 'bogus'],
    ['config', 'set', 'bogus', 'x'],
    ['config', 'unset', 'bogus'],
  ]) {
    const refused = await run(args);
    assertOneLineError(refused, 'unknown_setting', 2);
    assert.match(refused.stderr, /known project settings: notes, summary, remote\.default, plugins/);
  }
  const wrongScope = await run(['config', 'set', 'telemetry.enabled', 'true']);
  assertOneLineError(wrongScope, 'unknown_setting', 2);
  assert.match(wrongScope.stderr, /add --global/);
  assert.equal(projectConfig(), {}, 'refused keys change nothing');
});

test('config --global reads and writes config.json, masking secrets', async () => {
  const { home, run } = sandbox();
  const configPath = join(home, 'config.json');
  assertOk(await run(['config', 'set', '--global', 'telemetry.enabled', 'no']));
  assertOk(await run(['config', 'set', '--global', 'capture_detached_edits', 'true']));
  assertOneLineError(await run(['config', 'set', '--global', 'telemetry.enabled', 'maybe']), 'invalid_setting_value', 2);
  assert.equal(JSON.parse(readFileSync(configPath, 'utf8')), { telemetry: { enabled: false }, capture_detached_edits: true });

  const list = await run(['config', 'list', '--global', '--json']);
  assertOk(list);
  const byKey = Object.fromEntries(JSON.parse(list.stdout).map((row: { key: string }) => [row.key, row]));
  assert.equal(Object.keys(byKey), ['capture_detached_edits', 'telemetry.enabled', 'auth-token', 'commit_summary', 'redact.pii']);
  assert.is(byKey['telemetry.enabled'].value, false);
  assert.is(byKey['auth-token'].set, false);

  assertOk(await run(['config', 'unset', '--global', 'telemetry.enabled']));
  assert.equal(JSON.parse(readFileSync(configPath, 'utf8')), { capture_detached_edits: true }, 'the emptied parent object goes too');
  const unknown = await run(['config', 'unset', '--global', 'notes']);
  assertOneLineError(unknown, 'unknown_setting', 2);
  assert.match(unknown.stderr, /known global settings: capture_detached_edits, telemetry\.enabled, auth-token/);
});

test.run();
