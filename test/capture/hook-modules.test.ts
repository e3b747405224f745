import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN, cleanEnv, cleanup, sandbox, tempDir } from '../helpers/cli.js';

/**
 * Hook latency must not grow with the number of agents: `tracer hook <agent>`
 * loads that agent's adapter module and no other, and none of the kernel. Each
 * module the compiled hook resolves is reported by a resolve hook.
 */
test.after(cleanup);

const HOOK_BUNDLES = join(dirname(BIN), '..', 'dist', 'hooks');

function loadedModules(agent: string, event: string, payload: unknown, cwd: string, home: string): string[] {
  const dir = tempDir('hook-modules-');
  writeFileSync(
    join(dir, 'hooks.mjs'),
    "export async function resolve(s, c, next) { const r = await next(s, c); if (r.url.startsWith('file:')) process.stderr.write('MODULE ' + r.url + '\\n'); return r; }\n",
  );
  writeFileSync(join(dir, 'register.mjs'), "import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n");
  const result = spawnSync(process.execPath, ['--import', pathToFileURL(join(dir, 'register.mjs')).href, BIN, 'hook', agent, event], {
    cwd,
    input: JSON.stringify(payload),
    encoding: 'utf8',
    env: { ...cleanEnv(), TRACER_HOME: home },
  });
  assert.is(result.status, 0, result.stderr);
  return [
    ...new Set(
      result.stderr
        .split('\n')
        .filter((line) => line.startsWith('MODULE '))
        .map((line) => line.slice(7)),
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
    const modules = loadedModules(agent, event, { ...payload, cwd: box.repo }, box.repo, box.home);
    // The agent's adapter module, or its hook bundle (dist/hooks/, which holds that adapter and no other).
    const adapters = modules.filter((url) => /\/(plugins\/agents|dist\/hooks)\//.test(url));
    assert.equal(
      adapters.map((url) => url.replace(/^.*\/(plugins\/agents|dist\/hooks)\//, '')),
      [`${agent}.js`],
    );
    assert.equal(
      modules.filter((url) => /\/dist\/(kernel\/(kernel|boot|hooks)\.js|commands\/)/.test(url) || url.includes('node_modules')),
      [],
    );
  });
}

test('each agent hook bundle holds its own agent and no other: one per built-in agent, one for git, one for the spool fold with them all, one for bare transfers', async () => {
  const box = sandbox();
  const listed = await box.run(['plugins', '--json']);
  assert.is(listed.code, 0, listed.stderr);
  const agents: Array<{ id: string; title: string }> = JSON.parse(listed.stdout).agents;
  // One per agent, git.js for git's hooks, fold.js for the spool's background fold, transfer.js for bare push, pull and sync.
  assert.equal(readdirSync(HOOK_BUNDLES).sort(), [...agents.map((agent) => `${agent.id}.js`), 'fold.js', 'git.js', 'transfer.js'].sort());
  const fold = readFileSync(join(HOOK_BUNDLES, 'fold.js'), 'utf8');
  for (const agent of agents) assert.ok(fold.includes(JSON.stringify(agent.title)), `fold.js folds ${agent.title}'s events`);
  for (const agent of agents) {
    const bundle = readFileSync(join(HOOK_BUNDLES, `${agent.id}.js`), 'utf8');
    assert.ok(bundle.includes(JSON.stringify(agent.title)), `${agent.id}.js holds ${agent.title}`);
    const others = agents.filter((other) => other.id !== agent.id && bundle.includes(JSON.stringify(other.title)));
    assert.equal(
      others.map((other) => other.id),
      [],
      `${agent.id}.js holds no other agent`,
    );
  }
});

test.run();
