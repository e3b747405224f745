import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN, cleanEnv, cleanup, sandbox, tempDir } from '../helpers/cli.js';
import { buildOutputs, modulesIn } from '../helpers/build-meta.js';

/**
 * Hook latency must not grow with the number of agents: `tracer hook <agent>`
 * loads that agent's adapter module and no other, and none of the kernel. Each
 * file the compiled hook resolves is reported by a resolve hook, and mapped to
 * the source modules it holds (dist/meta.json, test/helpers/build-meta.ts).
 */
test.after(cleanup);

function loadedModules(agent: string, event: string, payload: unknown, cwd: string, home: string): string[] {
  const dir = tempDir('hook-modules-');
  const log = join(dir, 'resolved.log');
  // Module hooks run on a thread of their own: written to a file at once, no line is lost at exit.
  writeFileSync(
    join(dir, 'hooks.mjs'),
    `import { appendFileSync } from 'node:fs';\nexport async function resolve(s, c, next) { const r = await next(s, c); if (r.url.startsWith('file:')) appendFileSync(${JSON.stringify(log)}, r.url + '\\n'); return r; }\n`,
  );
  writeFileSync(join(dir, 'register.mjs'), "import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n");
  writeFileSync(log, '');
  const result = spawnSync(process.execPath, ['--import', pathToFileURL(join(dir, 'register.mjs')).href, BIN, 'hook', agent, event], {
    cwd,
    input: JSON.stringify(payload),
    encoding: 'utf8',
    env: { ...cleanEnv(), TRACER_HOME: home },
  });
  assert.is(result.status, 0, result.stderr);
  return [
    ...new Set(
      readFileSync(log, 'utf8')
        .split('\n')
        .filter((line) => line !== ''),
    ),
  ];
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
