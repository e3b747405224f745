import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runHook } from '../../src/capture/hook/direct.js';
import { cleanEnv, cleanup, sandbox } from '../helpers/cli.js';
import { projectDir, readJsonl } from './hook-fixtures.js';
import { spoolFolded } from '../helpers/spool.js';

/**
 * A project switches an agent off with its `plugins` setting
 * (`tracer config set plugins '!agents/<id>'`): that agent's hook then records
 * nothing in the project and says nothing (exit 0, no output, no line in
 * hook-errors.log), through the installed command and through runHook alike. Other agents, and
 * other projects, are untouched.
 */
test.after(cleanup);

const AGENTS_DIR = fileURLToPath(new URL('../fixtures/agents/', import.meta.url));

function payload(agent: string, name: string, repo: string): string {
  return readFileSync(join(AGENTS_DIR, agent, name), 'utf8')
    .replaceAll('__REPO__', repo)
    .replaceAll('__TRANSCRIPT__', join(repo, 'no-transcript.jsonl'));
}

/** The command line `tracer init` wrote into a Claude-style settings file for `event`. */
function installedCommand(settings: string, event: string): string {
  const file = JSON.parse(readFileSync(settings, 'utf8'));
  return file.hooks[event][0].hooks[0].command;
}

async function runInstalled(command: string, box: { repo: string; home: string }, input: string): Promise<void> {
  const result = spawnSync('sh', ['-c', command], {
    cwd: box.repo,
    input,
    encoding: 'utf8',
    env: { ...cleanEnv(), TRACER_HOME: box.home },
  });
  assert.is(result.status, 0, result.stderr);
  assert.is(result.stdout, '', 'nothing on stdout');
  assert.is(result.stderr, '', 'nothing on stderr');
  await spoolFolded(box.home);
}

function agentsRecorded(home: string): string[] {
  return readJsonl(join(projectDir(home), 'traces.jsonl')).map((row) => row.agent);
}

function hookErrors(home: string): string {
  const logs = [join(projectDir(home), 'hook-errors.log'), join(home, 'hook-errors.log')];
  return logs.map((path) => (existsSync(path) ? readFileSync(path, 'utf8') : '')).join('');
}

test("the installed hook of an agent the project's plugins setting switches off records nothing; other agents still record", async () => {
  const box = sandbox();
  const init = await box.run(['init', '--agents', 'gemini,qwen']);
  assert.is(init.code, 0, init.stderr);
  writeFileSync(join(box.repo, 'greet.py'), 'def greet(name):\n    return f"Hello, {name}!"\n');
  const geminiHook = installedCommand(join(box.repo, '.gemini/settings.json'), 'AfterTool');
  const qwenHook = installedCommand(join(box.repo, '.qwen/settings.json'), 'PostToolUse');

  const off = await box.run(['config', 'set', 'plugins', '!agents/gemini']);
  assert.is(off.code, 0, off.stderr);
  await runInstalled(geminiHook, box, payload('gemini', 'AfterTool.replace.json', box.repo));
  assert.equal(agentsRecorded(box.home), [], 'no row for the switched-off agent');
  await runInstalled(qwenHook, box, payload('qwen', 'PostToolUse.edit.json', box.repo));
  assert.equal(agentsRecorded(box.home), ['qwen'], 'an agent the project keeps records as before');
  assert.is(hookErrors(box.home), '', 'a switch-off is not a failure: nothing is logged');

  // The setting is what switched it off: without it, the same payload records.
  const on = await box.run(['config', 'unset', 'plugins']);
  assert.is(on.code, 0, on.stderr);
  await runInstalled(geminiHook, box, payload('gemini', 'AfterTool.replace.json', box.repo));
  assert.equal(agentsRecorded(box.home), ['qwen', 'gemini']);
});

test('a later entry of the same setting switches the agent back on', async () => {
  const box = sandbox();
  assert.is((await box.run(['init', '--agents', 'gemini'])).code, 0);
  writeFileSync(join(box.repo, 'greet.py'), 'def greet(name):\n    return f"Hello, {name}!"\n');
  const set = await box.run(['config', 'set', 'plugins', '["!agents/gemini", "agents/gemini"]']);
  assert.is(set.code, 0, set.stderr);
  await runInstalled(
    installedCommand(join(box.repo, '.gemini/settings.json'), 'AfterTool'),
    box,
    payload('gemini', 'AfterTool.replace.json', box.repo),
  );
  assert.equal(agentsRecorded(box.home), ['gemini']);
});

test("runHook honours the project's switch-off", async () => {
  const box = sandbox();
  assert.is((await box.run(['init', '--agents', 'none'])).code, 0);
  assert.is((await box.run(['config', 'set', 'plugins', '!agents/gemini'])).code, 0);
  writeFileSync(join(box.repo, 'greet.py'), 'def greet(name):\n    return f"Hello, {name}!"\n');
  const code = await runHook('gemini', 'AfterTool', {
    stdin: Readable.from([payload('gemini', 'AfterTool.replace.json', box.repo)]),
    env: { ...cleanEnv(), TRACER_HOME: box.home },
    cwd: box.repo,
  });
  assert.is(code, 0);
  assert.equal(agentsRecorded(box.home), []);
  assert.is(hookErrors(box.home), '');
});

test.run();
