import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, sandbox, tempDir } from '../helpers/cli.js';
import { assertOk, assertOneLineError } from './expect.js';

test.after(cleanup);

/** The package's own list: these tests check layering, not which built-ins ship. */
const BUILTINS: string[] = JSON.parse(readFileSync(new URL('../../plugins.json', import.meta.url), 'utf8')).plugins;

test('plugins shows built-ins in order, a user-layer switch-off and a project-layer entry', async () => {
  const { home, run } = sandbox();
  const plain = await run(['plugins', '--json']);
  assertOk(plain);
  const before = JSON.parse(plain.stdout);
  assert.equal(
    before.enabled.map((entry: { spec: string }) => entry.spec),
    BUILTINS,
  );
  assert.ok(before.enabled.every((entry: { source: string }) => entry.source === 'builtin'));
  assert.equal(before.disabled, []);

  assertOk(await run(['init']));
  writeFileSync(join(home, 'plugins.json'), JSON.stringify({ plugins: ['!summaries'] }));
  const fixture = join(tempDir('tracer-plugin-'), 'audit.mjs');
  writeFileSync(
    fixture,
    "export default { name: 'audit-fixture', apply(kernel) { kernel.warn({ code: 'fixture_loaded', message: 'audit fixture applied' }); } };\n",
  );
  assertOk(await run(['config', 'set', 'plugins', fixture]));

  const result = await run(['plugins', '--json']);
  assertOk(result);
  const list = JSON.parse(result.stdout);
  assert.equal(
    list.enabled.map((entry: { spec: string }) => entry.spec),
    [...BUILTINS.filter((name) => name !== 'summaries'), fixture],
  );
  const last = list.enabled.at(-1);
  assert.is(last.source, 'project');
  assert.is(last.name, 'audit-fixture');
  assert.match(last.file, /project-config\.json$/);
  assert.equal(
    list.disabled.map((entry: { spec: string; source: string; disabled_by: string; disabled_in: string }) => [
      entry.spec,
      entry.source,
      entry.disabled_by,
      entry.disabled_in,
    ]),
    [['summaries', 'builtin', 'user', join(home, 'plugins.json')]],
  );
  assert.equal(
    list.layers.map((layer: { source: string }) => layer.source),
    ['builtin', 'user', 'project'],
  );
  assert.match(result.stderr, /audit fixture applied \(fixture_loaded\)/, 'the project plugin was really applied');

  const text = await run(['plugins']);
  assertOk(text);
  assert.match(text.stdout, /^\s+1\. remote-resolver\s+builtin/m);
  assert.ok(text.stdout.includes(`${BUILTINS.length}. ${fixture}  project setting (audit-fixture)`), text.stdout);
  assert.match(text.stdout, /^Switched off:\n\s+summaries\s+\(builtin\) switched off by the user file .*plugins\.json$/m);
  assert.not.match(text.stdout, /^\s+\d+\. summaries\s/m);

  writeFileSync(join(home, 'plugins.json'), JSON.stringify({ plugins: ['!nonexistent'] }));
  const warned = await run(['plugins']);
  assertOk(warned);
  assert.match(warned.stderr, /switches off "nonexistent", which is not enabled.*\(plugin_not_enabled\)/);
});

test('a plugin entry that does not load still lets config and plugins run, so it can be fixed', async () => {
  const { home, run } = sandbox();
  assertOk(await run(['init']));
  writeFileSync(join(home, 'plugins.json'), JSON.stringify({ plugins: ['./missing-plugin.js'] }));

  const blocked = await run(['remote', 'list']);
  assertOneLineError(blocked, 'invalid_plugin');

  const listed = await run(['plugins', '--json']);
  assertOk(listed);
  const broken = JSON.parse(listed.stdout).enabled.at(-1);
  assert.equal([broken.spec, broken.source], ['./missing-plugin.js', 'user'], 'the list as configured, so the broken entry can be found');
  assert.match(listed.stderr, /missing-plugin\.js.*Only the built-in plugins are loaded until it is fixed \(invalid_plugin\)/);

  assertOk(await run(['config', 'list']));
});

test.run();
