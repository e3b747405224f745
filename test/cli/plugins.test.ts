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

  // A command that uses the plugins refuses; one that needs none of them (remote, config) does not even load them.
  const blocked = await run(['status']);
  assertOneLineError(blocked, 'invalid_plugin');
  assertOk(await run(['remote', 'list']));

  const listed = await run(['plugins', '--json']);
  assertOk(listed);
  const broken = JSON.parse(listed.stdout).enabled.at(-1);
  assert.equal([broken.spec, broken.source], ['./missing-plugin.js', 'user'], 'the list as configured, so the broken entry can be found');
  assert.match(listed.stderr, /missing-plugin\.js.*Only the built-in plugins are loaded until it is fixed \(invalid_plugin\)/);

  assertOk(await run(['config', 'list']));

  // Help and a usage error say so too: they are where someone looks for how to fix it.
  const help = await run(['--help']);
  assertOk(help);
  assert.match(help.stderr, /missing-plugin\.js.*\(invalid_plugin\)\n$/);
  const unknown = await run(['hello']);
  assert.is(unknown.code, 2);
  assert.match(unknown.stderr, /missing-plugin\.js.*\(invalid_plugin\)\ntracer: "hello" is not a tracer command/);
});

test.run();

test('a custom family shows in tracer plugins and in push / pull help, with what --only takes', async () => {
  const { run } = sandbox();
  assertOk(await run(['init']));
  const fixture = join(tempDir('tracer-plugin-'), 'notes.mjs');
  writeFileSync(
    fixture,
    "export default { name: 'notes-plugin', apply(kernel) { kernel.registerFamily({ name: 'team-notes', idMember: 'id', required: ['id', 'ts'], file: 'team-notes.jsonl', storage: ['team-notes.jsonl'] }); } };\n",
  );
  assertOk(await run(['config', 'set', 'plugins', fixture]));
  const listed = JSON.parse((await run(['plugins', '--json'])).stdout);
  assert.equal(listed.families.at(-1), { name: 'team-notes', plugin: 'notes-plugin', manifest_key: 'team_notes_ids', follows: null });
  assert.ok(listed.families.some((family: { name: string }) => family.name === 'traces'));
  const text = await run(['plugins']);
  assert.match(text.stdout, /Families, in push order:[\s\S]*team-notes {2}\(plugin notes-plugin, ids in synced\.team_notes_ids\)/);
  const push = await run(['push', '--help']);
  assertOk(push);
  assert.match(push.stdout.replace(/\s+/g, ' '), '`team-notes` (plugin notes-plugin)');
  assert.match(push.stdout.replace(/\s+/g, ' '), '`--only` takes traces, ledgers, commit-links, team-notes');
  const pull = await run(['pull', '--help']);
  assert.match(pull.stdout.replace(/\s+/g, ' '), '`team-notes` (plugin notes-plugin)');
});

test('a plugin that fails to load stops the command with one line naming it, before anything is written', async () => {
  const { run, home } = sandbox();
  assertOk(await run(['init']));
  const dir = tempDir('tracer-plugin-');
  const cases: Array<[string, string, string]> = [
    ['missing.mjs', '', 'invalid_plugin'],
    ['no-default.mjs', 'export const x = 1;\n', 'invalid_plugin'],
    ['bad-apply.mjs', "export default { name: 'bad-apply', apply() { throw new Error('boom'); } };\n", 'plugin_failed'],
    [
      'twice.mjs',
      "export default { name: 'twice', apply(kernel) { kernel.registerFamily({ name: 'ledgers', idMember: 'id', required: ['id', 'ts'], storage: [] }); } };\n",
      'duplicate_family',
    ],
  ];
  for (const [file, source, code] of cases) {
    const path = join(dir, file);
    if (source) writeFileSync(path, source);
    writeFileSync(join(home, 'plugins.json'), JSON.stringify({ plugins: [path] }));
    const result = await run(['status']);
    assertOneLineError(result, code);
    assert.not.match(result.stderr, /\n.+\n/, 'one line');
    assert.match(result.stderr, file.replace('.mjs', '').replace('missing', 'missing.mjs'));
  }
});
