import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, sandbox } from '../helpers/cli.js';
import { buildOutputs, loadedFiles, modulesIn } from '../helpers/build-meta.js';

/**
 * Hook latency must not grow with the number of agents: `tracer hook <agent>`
 * loads that agent's adapter module and no other, and none of the kernel. Each
 * file the compiled hook resolves is reported by a resolve hook, and mapped to
 * the source modules it holds (dist/meta.json, test/helpers/build-meta.ts).
 */
test.after(cleanup);

function loadedModules(agent: string, event: string, payload: unknown, cwd: string, home: string): string[] {
  return loadedFiles(['hook', agent, event], { cwd, home, input: JSON.stringify(payload) });
}

for (const [agent, event, payload] of [
  ['claude-code', 'SessionStart', { session_id: 's1', cwd: '' }],
  ['gemini', 'SessionStart', { session_id: 's1', cwd: '' }],
  ['opencode', 'session.idle', { sessionID: 's1' }],
] as const) {
  test(`tracer hook ${agent} loads its own adapter and no other, and nothing of the kernel`, async () => {
    const box = sandbox();
    assert.is((await box.run(['init', '--agents', 'none'])).code, 0);
    const files = loadedModules(agent, event, { ...payload, cwd: box.repo }, box.repo, box.home);
    assert.equal(
      files.filter((url) => url.includes('node_modules')),
      [],
      'no package',
    );
    const modules = modulesIn(files);
    assert.equal(
      modules.filter((module) => module.startsWith('src/plugins/agents/')),
      [`src/plugins/agents/${agent}.ts`],
    );
    assert.equal(
      modules.filter((module) => /^src\/(kernel\/(kernel|boot|hooks)\.ts|commands\/)/.test(module) || module.includes('tapable')),
      ['src/commands/hook.ts'],
      'the hook command, and nothing of the kernel',
    );
  });
}

test('each built-in agent is a module of its own in dist/, holding that agent and no other', async () => {
  const box = sandbox();
  const listed = await box.run(['plugins', '--json']);
  assert.is(listed.code, 0, listed.stderr);
  const agents: Array<{ id: string }> = JSON.parse(listed.stdout).agents;
  assert.ok(agents.length >= 12, `${agents.length} agents`);
  const outputs = buildOutputs();
  for (const { id } of agents) {
    const holders = [...outputs].filter(([, inputs]) => inputs.includes(`src/plugins/agents/${id}.ts`)).map(([file]) => file);
    assert.equal(holders, [`dist/plugins/agents/${id}.js`], `${id}: in its own module only`);
    const others = outputs
      .get(`dist/plugins/agents/${id}.js`)!
      .filter((input) => input.startsWith('src/plugins/agents/') && !input.endsWith(`/${id}.ts`));
    assert.equal(others, [], `${id}.js holds no other agent`);
  }
});

test.run();
