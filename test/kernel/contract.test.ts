import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TracerError } from '../../src/core/errors.js';
import { Kernel } from '../../src/kernel/kernel.js';
import {
  applyPlugins,
  BUILTIN_LIST_FILE,
  effectivePluginList,
  readPluginListFile,
  type PluginLayer,
} from '../../src/kernel/plugin-list.js';
import type { FamilyPlan } from '../../src/kernel/types.js';
import { resolveRemote } from '../../src/engine/session.js';
import { cleanup, tempDir } from '../helpers/cli.js';
import { clearJournal, fakeSession, journal } from '../fixtures/plugins/journal.js';

/**
 * The kernel's contract, proven with fixture plugins (test/fixtures/plugins/)
 * that note every tap in a shared journal.
 */
const FIXTURES = fileURLToPath(new URL('../fixtures/plugins/', import.meta.url));
/** A listing file that lives next to the fixtures, so "./alpha.ts" means the fixture. */
const FIXTURE_LIST = join(FIXTURES, 'plugins.json');

test.before.each(clearJournal);
test.after(cleanup);

const userLayer = (...entries: string[]): PluginLayer => ({ source: 'user', file: FIXTURE_LIST, entries });

async function kernelWith(...layers: PluginLayer[]): Promise<Kernel> {
  const list = effectivePluginList(layers);
  const kernel = new Kernel({ home: '/nowhere', cwd: '/nowhere', env: {} });
  for (const warning of list.warnings) kernel.warn(warning);
  await applyPlugins(kernel, list.enabled);
  return kernel;
}

async function rejection(run: () => Promise<unknown>): Promise<TracerError> {
  try {
    await run();
  } catch (error) {
    assert.instance(error, TracerError);
    return error as TracerError;
  }
  assert.unreachable('expected a TracerError');
  throw new Error('unreachable');
}

const plan = (): FamilyPlan => ({
  family: { name: 'traces', idMember: 'id', required: ['id', 'ts'], storage: [], manifestKey: 'trace_ids', plugin: 'traces' },
  filters: [],
});
const pulled = () => ({ family: plan().family, received: 0, inserted: 0 });

test('plugins apply, and their taps run, in list order', async () => {
  const forward = await kernelWith(userLayer('./alpha.ts', './beta.ts'));
  assert.equal(journal.splice(0), ['apply:alpha', 'apply:beta']);
  await forward.hooks.preflight.promise(fakeSession());
  await forward.hooks.afterPull.promise(pulled(), fakeSession());
  assert.equal(journal.splice(0), ['preflight:alpha', 'preflight:beta', 'afterPull:alpha', 'afterPull:beta']);

  const backward = await kernelWith(userLayer('./beta.ts', './alpha.ts'));
  await backward.hooks.preflight.promise(fakeSession());
  assert.equal(journal.splice(0), ['apply:beta', 'apply:alpha', 'preflight:beta', 'preflight:alpha']);
  assert.equal(
    backward.plugins.map((plugin) => plugin.name),
    ['fixture-beta', 'fixture-alpha'],
  );
});

test('a lower stage runs first whatever the list order', async () => {
  const kernel = await kernelWith(userLayer('./alpha.ts', './beta.ts', './early.ts'));
  journal.length = 0;
  await kernel.hooks.preflight.promise(fakeSession());
  assert.equal(journal, ['preflight:early', 'preflight:alpha', 'preflight:beta']);
});

test('bail: the first answer wins and later taps never run', async () => {
  const kernel = await kernelWith(userLayer('./fallback.ts', './alpha.ts', './beta.ts'));
  journal.length = 0;
  const session = fakeSession();
  const alpha = await resolveRemote(kernel, { project: session.project, name: 'alpha', purpose: 'sync' });
  assert.is(alpha.name, 'fixture-alpha');
  assert.equal(journal.splice(0), ['resolveRemote:alpha']);
  const beta = await resolveRemote(kernel, { project: session.project, name: 'beta', purpose: 'sync' });
  assert.is(beta.name, 'fixture-beta');
  assert.equal(journal.splice(0), ['resolveRemote:alpha', 'resolveRemote:beta']);
});

test('bail: a later-stage fallback (listed first) answers only when every earlier tap declines', async () => {
  const kernel = await kernelWith(userLayer('./fallback.ts', './alpha.ts', './beta.ts'));
  journal.length = 0;
  const remote = await resolveRemote(kernel, { project: fakeSession().project, name: 'unknown', purpose: 'sync' });
  assert.is(remote.name, 'fixture-fallback');
  assert.equal(journal, ['resolveRemote:alpha', 'resolveRemote:beta', 'resolveRemote:fallback']);
});

test('bail: when nobody answers, resolveRemote says to check the enabled plugins', async () => {
  const kernel = await kernelWith(userLayer('./alpha.ts'));
  const error = await rejection(() => resolveRemote(kernel, { project: fakeSession().project, name: 'unknown', purpose: 'sync' }));
  assert.is(error.code, 'remote_unresolved');
  assert.match(error.message, /tracer plugins/);
});

test('waterfall: each tap refines the plan the previous one returned', async () => {
  const kernel = await kernelWith(userLayer('./alpha.ts', './beta.ts'));
  journal.length = 0;
  const refined = await kernel.hooks.beforeFamily.promise(plan(), fakeSession());
  assert.equal(journal, ['beforeFamily:alpha:saw-0', 'beforeFamily:beta:saw-1']);
  assert.is(refined.filters.length, 2);
  assert.equal(
    [{ by: 'alpha' }, { by: 'beta' }, { by: 'gamma' }].filter((record) => refined.filters.every((filter) => filter.accept(record))),
    [{ by: 'gamma' }],
  );
});

test('an Error thrown in a tap comes out as plugin_failed naming the plugin and the hook (every tap type)', async () => {
  const kernel = await kernelWith(userLayer('./failing-taps.ts'));
  const session = fakeSession();
  const cases: Array<[string, () => Promise<unknown>, string]> = [
    ['preflight', () => kernel.hooks.preflight.promise(session), 'disk on fire'],
    ['afterPull', () => kernel.hooks.afterPull.promise(pulled(), session), 'callback failure'],
    [
      'uploadBlob',
      () => kernel.hooks.uploadBlob.promise({ sha256: 'a'.repeat(64), size: 1, path: '/x', family: plan().family }, session),
      'sync failure',
    ],
    ['beforeFamily', () => kernel.hooks.beforeFamily.promise(plan(), session), 'a bare string'],
  ];
  for (const [hook, run, cause] of cases) {
    const error = await rejection(run);
    assert.is(error.code, 'plugin_failed', hook);
    assert.is(error.plugin, 'fixture-failing', hook);
    assert.is(error.hook, hook);
    assert.ok(error.message.includes('fixture-failing') && error.message.includes(hook) && error.message.includes(cause), error.message);
    assert.not.match(error.message, /\n/);
  }
});

test('a TracerError thrown in a tap keeps its code and sentence, and gains the plugin and hook', async () => {
  const kernel = await kernelWith(userLayer('./failing-taps.ts'));
  const error = await rejection(() => resolveRemote(kernel, { project: fakeSession().project, purpose: 'sync' }));
  assert.is(error.code, 'org_slug_mismatch');
  assert.is(error.exitCode, 6);
  assert.is(error.message, 'The token belongs to another org; use a token of org acme.');
  assert.is(error.plugin, 'fixture-failing');
  assert.is(error.hook, 'resolveRemote');
});

test('a plugin whose apply() throws fails the boot with plugin_failed in "apply"', async () => {
  const error = await rejection(() => kernelWith(userLayer('./alpha.ts', './apply-throws.ts')));
  assert.is(error.code, 'plugin_failed');
  assert.is(error.plugin, 'fixture-apply-throws');
  assert.is(error.hook, 'apply');
  assert.match(error.message, /cannot start/);
});

test('a class exported by default is instantiated', async () => {
  const kernel = await kernelWith(userLayer('./class-plugin.ts'));
  await kernel.hooks.preflight.promise(fakeSession());
  assert.equal(journal, ['apply:class', 'preflight:class']);
});

test('invalid plugin modules are refused with invalid_plugin naming the entry and its listing file', async () => {
  for (const entry of ['./not-a-plugin.ts', './load-fails.ts', './no-such-file.ts', 'no-such-builtin', '@nobody/not-installed']) {
    const error = await rejection(() => kernelWith(userLayer(entry)));
    assert.is(error.code, 'invalid_plugin', entry);
    assert.ok(error.message.includes(entry) && error.message.includes(FIXTURE_LIST), error.message);
  }
});

test('effectivePluginList: three layers, a later "!name" switches a built-in off, a still later layer re-enables it', async () => {
  const builtin: PluginLayer = {
    source: 'builtin',
    file: BUILTIN_LIST_FILE,
    entries: ['remote-resolver', 'traces', 'ledgers', 'commit-links', 'conversations', 'summaries'],
  };
  const user: PluginLayer = { source: 'user', file: '/home/u/.tracer/plugins.json', entries: ['!ledgers', '!summaries', '/opt/extra.js'] };
  const project: PluginLayer = {
    source: 'project',
    file: '/home/u/.tracer/projects/p/project-config.json',
    entries: ['ledgers', '!not-enabled', 'traces'],
  };
  const list = effectivePluginList([builtin, user, project]);
  assert.equal(
    list.enabled.map((entry) => `${entry.spec}@${entry.source}`),
    ['remote-resolver@builtin', 'traces@builtin', 'commit-links@builtin', 'conversations@builtin', '/opt/extra.js@user', 'ledgers@project'],
  );
  assert.equal(
    list.disabled.map((entry) => `${entry.spec}@${entry.source} off by ${entry.disabledBy} in ${entry.disabledIn}`),
    [`summaries@builtin off by user in ${user.file}`],
  );
  assert.is(list.warnings.length, 1);
  assert.is(list.warnings[0]!.code, 'plugin_not_enabled');
  assert.ok(list.warnings[0]!.message.includes('not-enabled') && list.warnings[0]!.message.includes(project.file));
});

test('the warning for an unknown switch-off reaches the kernel, which still boots', async () => {
  const kernel = await kernelWith(userLayer('./alpha.ts', '!fixture-nothing'));
  assert.equal(
    kernel.warnings.map((warning) => warning.code),
    ['plugin_not_enabled'],
  );
  assert.equal(
    kernel.plugins.map((plugin) => plugin.name),
    ['fixture-alpha'],
  );
});

test('module paths are relative to the listing file, not to the working directory', async () => {
  const dir = join(tempDir('tracer-plugins-'), 'a', 'b');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'plugins.json');
  const relativeEntry = relative(dir, join(FIXTURES, 'alpha.ts'));
  assert.ok(relativeEntry.startsWith('..'));
  writeFileSync(file, JSON.stringify({ plugins: [relativeEntry] }));
  const kernel = await kernelWith(await readPluginListFile(file, 'user'));
  assert.equal(
    kernel.plugins.map((plugin) => plugin.name),
    ['fixture-alpha'],
  );
  // The same text listed from another folder names another (missing) file.
  const error = await rejection(() =>
    kernelWith({ source: 'user', file: join(dir, 'a-level-deeper', 'plugins.json'), entries: [relativeEntry] }),
  );
  assert.is(error.code, 'invalid_plugin');
});

test('a module path switched off from another listing file is matched by the file it names', async () => {
  const userDir = tempDir('tracer-user-');
  const projectDir = join(tempDir('tracer-project-'), 'projects', 'p');
  const userEntry = relative(userDir, join(FIXTURES, 'alpha.ts'));
  const projectEntry = relative(projectDir, join(FIXTURES, 'alpha.ts'));
  assert.is.not(userEntry, projectEntry);
  const list = effectivePluginList([
    { source: 'user', file: join(userDir, 'plugins.json'), entries: [userEntry, './beta.ts'] },
    { source: 'project', file: join(projectDir, 'project-config.json'), entries: [`!${projectEntry}`, './beta.ts'] },
  ]);
  assert.equal(
    list.enabled.map((entry) => entry.source),
    ['user', 'project'],
    'alpha switched off; ./beta.ts of each folder are two different files',
  );
  assert.equal(
    list.disabled.map((entry) => entry.spec),
    [userEntry],
  );
  assert.equal(list.warnings, []);
});

test('families are registered in list order; built-ins first in plugins.json order', async () => {
  const builtin = await readPluginListFile(BUILTIN_LIST_FILE, 'builtin');
  const familyPlugins = ['traces', 'ledgers', 'commit-links', 'conversations', 'summaries'];
  assert.equal(
    builtin.entries.filter((entry) => familyPlugins.includes(entry)),
    familyPlugins,
    'the spec families, in the spec order',
  );
  const kernel = await kernelWith(builtin, userLayer('./beta.ts', './alpha.ts'));
  assert.equal(
    kernel.families.map((family) => family.name),
    [...familyPlugins, 'fixture-beta', 'fixture-alpha'],
  );
  const reordered = await kernelWith(
    { ...builtin, entries: ['summaries', 'traces', 'ledgers', 'commit-links', 'conversations'] },
    userLayer('./alpha.ts', './beta.ts'),
  );
  assert.equal(
    reordered.families.map((family) => family.name),
    ['summaries', 'traces', 'ledgers', 'commit-links', 'conversations', 'fixture-alpha', 'fixture-beta'],
  );
  assert.is(kernel.family('fixture-alpha')?.plugin, 'fixture-alpha');
  assert.is(kernel.family('fixture-alpha')?.manifestKey, 'fixture_alpha_ids');
  assert.ok(Object.isFrozen(kernel.family('traces')));
});

test('a duplicate family name or manifest key is refused, naming both plugins', async () => {
  const builtin = await readPluginListFile(BUILTIN_LIST_FILE, 'builtin');
  const family = await rejection(() => kernelWith(builtin, userLayer('./duplicate-family.ts')));
  assert.is(family.code, 'duplicate_family');
  assert.is(family.plugin, 'fixture-duplicate-family');
  assert.match(family.message, 'Plugins "traces" and "fixture-duplicate-family" both register the family "traces"');
  const key = await rejection(() => kernelWith(builtin, userLayer('./duplicate-manifest-key.ts')));
  assert.is(key.code, 'duplicate_family');
  assert.match(key.message, 'Plugins "traces" and "fixture-duplicate-manifest-key" both register the manifest key "trace_ids"');
});

test('removing a plugin from the list removes its family and nothing else', async () => {
  const builtin = await readPluginListFile(BUILTIN_LIST_FILE, 'builtin');
  const full = await kernelWith(builtin, userLayer('./alpha.ts'));
  const tapsOf = (kernel: Kernel) =>
    Object.fromEntries(Object.entries(kernel.hooks).map(([name, hook]) => [name, hook.taps.map((tap) => tap.name)]));
  for (const [switchOff, family, plugin] of [
    ['!ledgers', 'ledgers', 'ledgers'],
    ['!./alpha.ts', 'fixture-alpha', 'fixture-alpha'],
  ] as const) {
    const without = await kernelWith(builtin, userLayer('./alpha.ts'), { source: 'project', file: FIXTURE_LIST, entries: [switchOff] });
    assert.equal(
      without.families,
      full.families.filter((known) => known.name !== family),
      switchOff,
    );
    assert.equal(
      without.plugins.map((known) => known.name),
      full.plugins.map((known) => known.name).filter((name) => name !== plugin),
    );
    const expectedTaps = Object.fromEntries(
      Object.entries(tapsOf(full)).map(([hook, names]) => [hook, names.filter((name) => name !== plugin)]),
    );
    assert.equal(tapsOf(without), expectedTaps, `${switchOff}: every other tap is still there`);
    assert.equal(without.warnings, []);
  }
});

test.run();
