import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TracerError } from '../../src/core/errors.js';
import { bootKernel, pluginLayers } from '../../src/kernel/boot.js';
import { BUILTIN_LIST_FILE } from '../../src/kernel/plugin-list.js';
import { homePaths } from '../../src/store/home.js';
import { resolveProject } from '../../src/store/project.js';
import { cleanup, runTracer, tempDir, tempRepo } from '../helpers/cli.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/plugins/', import.meta.url));
const HOUSE_AGENT = fileURLToPath(new URL('../../examples/plugins/house-agent.ts', import.meta.url));
const HOUSE_PLUGIN = 'acme-agent';
const BUILTIN_FAMILIES = ['traces', 'ledgers', 'commit-links', 'conversations', 'summaries'];

test.after(cleanup);

function initializedRepo() {
  const repo = tempRepo();
  const home = join(tempDir(), 'home');
  const project = resolveProject({ cwd: repo, home, env: {}, create: true });
  mkdirSync(project.dir, { recursive: true });
  return { repo, home, project };
}

test('boot reads the three layers in order: built-ins, $TRACER_HOME/plugins.json, project-config.json', async () => {
  const { repo, home, project } = initializedRepo();
  writeFileSync(homePaths(home).plugins, JSON.stringify({ plugins: [join(FIXTURES, 'alpha.ts'), '!summaries'] }));
  writeFileSync(join(project.dir, 'project-config.json'), JSON.stringify({ plugins: ['!traces', join(FIXTURES, 'beta.ts')] }));
  const layers = await pluginLayers(home, project);
  assert.equal(
    layers.map((layer) => [layer.source, layer.file]),
    [
      ['builtin', BUILTIN_LIST_FILE],
      ['user', homePaths(home).plugins],
      ['project', join(project.dir, 'project-config.json')],
    ],
  );
  const kernel = await bootKernel({ home, cwd: join(repo), env: {} });
  assert.is(kernel.context.project?.id, project.id);
  assert.equal(
    kernel.families.map((family) => family.name),
    ['ledgers', 'commit-links', 'conversations', 'fixture-alpha', 'fixture-beta'],
  );
  assert.equal(kernel.warnings, []);
});

test('outside a project the kernel boots with the built-ins and the user layer only', async () => {
  const home = join(tempDir(), 'home');
  mkdirSync(home, { recursive: true });
  writeFileSync(homePaths(home).plugins, JSON.stringify({ plugins: [join(FIXTURES, 'alpha.ts')] }));
  const kernel = await bootKernel({ home, cwd: tempDir('tracer-not-git-'), env: {} });
  assert.is(kernel.context.project, undefined);
  assert.equal(
    kernel.families.map((family) => family.name),
    [...BUILTIN_FAMILIES, 'fixture-alpha'],
  );
  assert.equal(
    (await pluginLayers(home, undefined)).map((layer) => layer.source),
    ['builtin', 'user'],
  );
});

test('the built-in agents are applied only when a command asks for them, then in plugin-list order', async () => {
  const { repo, home } = initializedRepo();
  // A custom agent listed after the built-ins stays after them, though it is applied first.
  writeFileSync(homePaths(home).plugins, JSON.stringify({ plugins: [HOUSE_AGENT] }));
  const kernel = await bootKernel({ home, cwd: repo, env: {} });
  assert.ok(
    kernel.plugins.every((plugin) => !plugin.name.startsWith('agents/')),
    'no built-in agent is applied at boot',
  );
  assert.throws(() => kernel.agents, /loadAgents/);
  const agents = await kernel.loadAgents();
  const ids = agents.map((agent) => agent.id);
  assert.equal(ids.slice(0, 3), ['claude-code', 'cursor', 'codex']);
  assert.is(ids.at(-1), 'acme');
  assert.equal(
    kernel.plugins.map((plugin) => plugin.name).filter((name) => name.startsWith('agents/') || name === HOUSE_PLUGIN),
    [...ids.slice(0, -1).map((id) => `agents/${id}`), HOUSE_PLUGIN],
  );
  assert.is(await kernel.loadAgents(), agents, 'loaded once');
});

test('a project plugins setting that is not a list of strings is refused with invalid_setting_value', async () => {
  const { repo, home, project } = initializedRepo();
  writeFileSync(join(project.dir, 'project-config.json'), JSON.stringify({ plugins: 'alpha' }));
  try {
    await bootKernel({ home, cwd: repo, env: {} });
    assert.unreachable('should refuse');
  } catch (error) {
    assert.instance(error, TracerError);
    assert.is((error as TracerError).code, 'invalid_setting_value');
  }
});

test('a user plugins.json that is not a list is moved aside, never silently ignored', async () => {
  const home = join(tempDir(), 'home');
  mkdirSync(home, { recursive: true });
  writeFileSync(homePaths(home).plugins, JSON.stringify({ plugins: [1, 2] }));
  try {
    await bootKernel({ home, cwd: tempDir('tracer-not-git-'), env: {} });
    assert.unreachable('should refuse');
  } catch (error) {
    assert.instance(error, TracerError);
    assert.is((error as TracerError).code, 'state_file_corrupt');
    assert.ok((error as TracerError).message.includes('plugins.json.corrupt-'));
  }
});

test('a plugin listed by the user contributes a command to the built binary', async () => {
  const home = join(tempDir(), 'home');
  mkdirSync(home, { recursive: true });
  writeFileSync(homePaths(home).plugins, JSON.stringify({ plugins: [join(FIXTURES, 'hello-command.mjs')] }));
  const cwd = tempDir('tracer-not-git-');
  const greeted = await runTracer(['fixture-hello', '--who', 'tester'], { cwd, home });
  assert.is(greeted.code, 0, greeted.stderr);
  assert.is(greeted.stdout, 'hello tester from fixture-hello\n');
  const help = await runTracer(['fixture-hello', '--help'], { cwd, home });
  assert.match(help.stdout, /Greets from a plugin/);
  writeFileSync(homePaths(home).plugins, JSON.stringify({ plugins: [] }));
  const gone = await runTracer(['fixture-hello'], { cwd, home });
  assert.is.not(gone.code, 0, 'without the plugin the command does not exist');
});

test("a plugin's command under a word of tracer's own (token rotate) is listed with the others by tracer token --help", async () => {
  const home = join(tempDir(), 'home');
  mkdirSync(home, { recursive: true });
  writeFileSync(homePaths(home).plugins, JSON.stringify({ plugins: [join(FIXTURES, 'token-rotate.mjs')] }));
  const cwd = tempDir('tracer-not-git-');
  const help = await runTracer(['token', '--help'], { cwd, home });
  assert.is(help.code, 0, help.stderr);
  for (const command of ['token create', 'token revoke', 'token rotate']) assert.ok(help.stdout.includes(`tracer ${command}`), command);
  const rotated = await runTracer(['token', 'rotate'], { cwd, home });
  assert.equal([rotated.code, rotated.stdout], [0, 'rotated\n'], rotated.stderr);
});

test("the kernel's built-in plugins are their modules, the same instances an import of the file gives", async () => {
  const { repo, home } = initializedRepo();
  const kernel = await bootKernel({ home, cwd: repo, env: {} });
  for (const name of BUILTIN_FAMILIES) {
    const module = await import(`../../src/plugins/${name}.ts`);
    assert.is(
      kernel.plugins.find((plugin) => plugin.name === name),
      module.default,
      `${name}: the module's own plugin, not a second copy`,
    );
  }
});

test.run();
