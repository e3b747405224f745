import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN, cleanEnv, cleanup, sandbox } from '../helpers/cli.js';
import { payload } from '../capture/hook-fixtures.js';

// The command registry (src/cli/registry.ts): the command table names the module of the command
// a line names (a path of one or more words; several commands may share one), clipanion parses the
// line, and a command that reads what the agents' spool feeds has it folded in first, others not.
const HOOK_SCRIPT = fileURLToPath(new URL('../../bin/tracer-hook.sh', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

test.after(cleanup);

test('a path of one word or two; one path, two commands', async () => {
  const box = sandbox();
  assert.is((await box.run(['init', '--agents', 'none'])).code, 0);
  assert.is((await box.run(['remote', 'add', 'origin', 'http://127.0.0.1:9/acme/web'])).code, 0);
  const listed = await box.run(['remote', 'list']);
  assert.is(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /origin\s+http:\/\/127\.0\.0\.1:9\/acme\/web/);
  assert.equal(await box.run(['remote']), listed, '`tracer remote` is `tracer remote list`');
  // `hook <agent> <event>` and `hook --fold` are two commands of the path `hook`.
  const help = await box.run(['hook', '--help']);
  assert.match(help.stdout, /tracer hook <agent> <event>/);
  assert.match(help.stdout, /tracer hook <--fold>/);
  const wrong = await box.run(['hook', 'claude-code']);
  assert.is(wrong.code, 2);
  assert.match(
    wrong.stderr,
    /tracer hook does not take "claude-code": it takes tracer hook <agent> <event>, or tracer hook <--fold>.*\(invalid_usage\)/,
  );
  const version = await box.run(['--version']);
  assert.equal([version.code, version.stderr], [0, '']);
  assert.match(version.stdout, /^\d+\.\d+\.\d+\n$/);
});

test('the command table says which commands boot the kernel', async () => {
  const table: Array<{ path: string[]; kernel: boolean }> = JSON.parse(readFileSync(join(ROOT, 'dist', 'commands.json'), 'utf8'));
  const boots = (path: string) => table.filter((entry) => entry.path.join(' ') === path).map((entry) => entry.kernel);
  for (const path of ['push', 'pull', 'sync', 'status', 'doctor', 'plugins']) assert.equal(boots(path), [true], path);
  for (const path of [
    'remote list',
    'config list',
    'token create',
    'rule list',
    'blame',
    'show',
    'stats',
    'context',
    'ci github',
    'commit-link',
  ])
    assert.equal(boots(path), [false], path);
  assert.equal(boots('hook'), [false, false], 'hook <agent> <event> and hook --fold');
});

test('a reader that stops early (| head) ends the output, not the command: no crash, its own exit code', async () => {
  const { repo, home } = sandbox();
  const child = spawn(process.execPath, [BIN, '--help'], {
    cwd: repo,
    env: { ...cleanEnv(), TRACER_HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Our end of the pipe closes before tracer writes: its writes meet EPIPE, as after `head` has read its lines.
  child.stdout!.destroy();
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.is(code, 0, stderr);
  assert.not.match(stderr, /EPIPE|Unhandled|Error/);
});

test('the spool is folded first for a command that reads what it feeds, and left for one that does not', async () => {
  const box = sandbox();
  assert.is((await box.run(['init', '--agents', 'claude-code'])).code, 0);
  // The hook's script with a `node` that starts nothing: the event stays spooled until a command folds it.
  const spooled = spawnSync('/bin/sh', [HOOK_SCRIPT, '/bin/true', BIN, 'hook', 'claude-code', 'UserPromptSubmit'], {
    cwd: box.repo,
    input: payload('claude-code', 'UserPromptSubmit', { repo: box.repo }),
    env: { ...cleanEnv(), TRACER_HOME: box.home },
  });
  assert.is(spooled.status, 0);
  const pending = () => readdirSync(join(box.home, 'spool')).filter((name) => name.endsWith('.event')).length;
  assert.is(pending(), 1);
  for (const args of [['remote', 'list'], ['config', 'list'], ['rule', 'list'], ['plugins']]) {
    assert.is((await box.run(args)).code, 0, args.join(' '));
    assert.is(pending(), 1, `tracer ${args.join(' ')} reads nothing the spool feeds: it leaves it`);
  }
  const status = await box.run(['status']);
  assert.is(status.code, 0, status.stderr);
  assert.is(pending(), 0, 'tracer status folds it first');
});

test.run();
