import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, runTracer, sandbox, tempDir } from '../helpers/cli.js';
import { assertOk, assertOneLineError } from './expect.js';

test.after(cleanup);

const VERSION = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;

test('--version, --help and per-command help with examples', async () => {
  const { run } = sandbox();
  const version = await run(['--version']);
  assertOk(version);
  assert.is(version.stdout, `${VERSION}\n`);

  const help = await run(['--help']);
  assertOk(help);
  for (const command of [
    'init',
    'remote add',
    'remote set-url',
    'remote set-token',
    'remote rename',
    'remote remove',
    'remote show',
    'remote list',
    'config unset',
    'config list',
    'reset',
    'set global',
    'set globaluser',
    'plugins',
  ]) {
    assert.ok(help.stdout.includes(`tracer ${command}`), `--help lists ${command}`);
  }

  const addHelp = await run(['remote', 'add', '--help']);
  assertOk(addHelp);
  assert.match(addHelp.stdout, /--token-env/);
  assert.match(addHelp.stdout, /^Examples$/m);
  assert.match(addHelp.stdout, /tracer remote add origin https:\/\/traces\.example\.com\/acme\/web --token <TOKEN>/);
  const resetHelp = await run(['reset', '-h']);
  assertOk(resetHelp);
  assert.match(resetHelp.stdout, /tracer reset --data --yes/);

  assertOneLineError(await run(['frobnicate']), 'invalid_usage', 2);
  // An unknown command names the word, the closest command and every command there is.
  const unknown = await run(['pusj']);
  assertOneLineError(unknown, 'invalid_usage', 2);
  assert.match(unknown.stderr, '"pusj" is not a tracer command (perhaps tracer push); the commands are ');
  for (const command of ['init', 'reset', 'remote add', 'push', 'pull', 'sync', 'status'])
    assert.match(unknown.stderr, new RegExp(`[:,] ${command}[,;]`), `the list names ${command}`);
  assert.not.match(unknown.stderr, /\[--/, 'command names only, no option lists');
  assertOneLineError(await run(['reset', '--bogus']), 'invalid_usage', 2);
});

test('a word that only groups commands (token, config, rule) lists them, alone or with --help; a wrong word under it says its forms once', async () => {
  const { run } = sandbox();
  for (const [args, commands] of [
    [['token'], ['token create', 'token revoke']],
    [
      ['token', '--help'],
      ['token create', 'token revoke'],
    ],
    [
      ['config', '-h'],
      ['config get', 'config list', 'config set', 'config unset'],
    ],
    [['rule'], ['rule add', 'rule list', 'rule remove']],
  ] as const) {
    const listed = await run([...args]);
    assertOk(listed);
    for (const command of commands) assert.ok(listed.stdout.includes(`tracer ${command}`), `${args.join(' ')} lists ${command}`);
    assert.not.ok(listed.stdout.includes('tracer push'), 'only the commands under that word');
    assert.is(listed.stderr, '');
  }
  const wrong = await run(['token', 'frob']);
  assertOneLineError(wrong, 'invalid_usage', 2);
  assert.match(
    wrong.stderr,
    /it takes tracer token create .*, or tracer token revoke .*; run tracer token --help for the usage\. \(invalid_usage\)$/m,
  );
  const show = await run(['show', 'HEAD', '--cost=3']);
  assertOneLineError(show, 'invalid_usage', 2);
  assert.is(show.stderr.split('tracer show [').length, 2, `one form, said once: ${show.stderr}`);
});

test('with --json, a failure is also one object on stdout: {"ok": false, "error": {"code", "message"}}', async () => {
  const { run } = sandbox();
  for (const args of [
    ['why', 'nowhere.ts', '--json'],
    ['search', 'retry', '--json'],
    ['push', '--json', '--since', 'yesterday'],
  ]) {
    const failed = await run(args);
    assertOneLineError(failed, /\(([a-z_]+)\)\n$/.exec(failed.stderr)![1]!);
    const answer = JSON.parse(failed.stdout);
    assert.is(answer.ok, false, args.join(' '));
    assert.ok(failed.stderr.includes(`(${answer.error.code})`), `${args.join(' ')}: the code stderr names`);
    assert.type(answer.error.message, 'string');
  }
});

test('commands that need a project say so in one line, before init and outside git', async () => {
  const { run } = sandbox();
  for (const args of [['remote', 'list'], ['remote', 'add', 'o', 'https://h.example.com/a/b'], ['reset'], ['config', 'get', 'notes']]) {
    assertOneLineError(await run(args), 'project_not_initialized', 3);
  }
  const outside = tempDir('tracer-plain-');
  assertOneLineError(await run(['remote', 'show'], { cwd: outside }), 'not_a_git_repository', 3);
});

test('push, pull and sync alone (run without clipanion) fail exactly as with an option: before init, outside git, without a remote', async () => {
  const { run } = sandbox();
  const outside = tempDir('tracer-plain-');
  for (const command of ['push', 'pull', 'sync']) {
    for (const args of [[command], [command, '--quiet']]) {
      assertOneLineError(await run(args), 'project_not_initialized', 3);
      assertOneLineError(await run(args, { cwd: outside }), 'not_a_git_repository', 3);
    }
  }
  assertOk(await run(['init']));
  for (const command of ['push', 'pull', 'sync']) {
    const bare = await run([command]);
    const quiet = await run([command, '--quiet']);
    assertOneLineError(bare, 'no_remote', 2);
    assert.equal({ code: bare.code, stderr: bare.stderr }, { code: quiet.code, stderr: quiet.stderr }, command);
  }
});

test('a corrupt remotes.json or config.json is moved aside with a timestamp and the message says where', async () => {
  const { home, run } = sandbox();
  const init = await run(['init']);
  assertOk(init);
  const dir = join(home, 'projects', /tracer project (\S+)/.exec(init.stdout)![1]!);
  writeFileSync(join(dir, 'remotes.json'), '{"remotes": {"origin": ');

  const result = await run(['remote', 'list']);
  assertOneLineError(result, 'state_file_corrupt', 3);
  const aside = readdirSync(dir).filter((name) => /^remotes\.json\.corrupt-\d{4}-\d\d-\d\dT/.test(name));
  assert.is(aside.length, 1);
  assert.ok(result.stderr.includes(join(dir, aside[0]!)), 'the message names the moved file');
  assert.is(readFileSync(join(dir, aside[0]!), 'utf8'), '{"remotes": {"origin": ', 'moved, not rewritten');
  assert.not.ok(existsSync(join(dir, 'remotes.json')));

  assertOk(await run(['remote', 'add', 'origin', 'https://h.example.com/acme/web']));
  writeFileSync(join(home, 'config.json'), '[]');
  const config = await run(['remote', 'set-token', 'origin', '--token', 'tok_abcdefghijklmnop']);
  assertOneLineError(config, 'state_file_corrupt', 3);
  assert.match(config.stderr, /config\.json does not have the expected shape; it was moved to .*config\.json\.corrupt-/);
  assert.equal(
    JSON.parse(readFileSync(join(dir, 'remotes.json'), 'utf8')).remotes.origin.auth,
    undefined,
    'the ref was not bound to a secret that was never stored',
  );

  // project-config.json is read while the kernel boots, before any command runs.
  writeFileSync(join(dir, 'project-config.json'), '{"notes": "unterminated');
  const boot = await run(['plugins']);
  assertOneLineError(boot, 'state_file_corrupt', 3);
  assert.match(boot.stderr, /project-config\.json is not valid JSON; it was moved to .*project-config\.json\.corrupt-/);
  assertOk(await run(['plugins']));
});

test('an unwritable TRACER_HOME gives one line and a non-zero exit', async () => {
  const { repo } = sandbox();
  const file = join(tempDir('tracer-file-'), 'not-a-dir');
  writeFileSync(file, 'x');
  const home = join(file, 'home');
  const run = (args: string[]) => runTracer(args, { cwd: repo, home });
  const init = await run(['init']);
  assertOneLineError(init, 'state_unwritable', 3);
  assert.match(init.stderr, /Cannot write .*not-a-dir\/home/);
  assertOneLineError(
    await run(['remote', 'add', 'origin', 'https://h.example.com/acme/web', '--token', 'tok_abcdefghijklmnop']),
    'state_unwritable',
    3,
  );
  assertOneLineError(await run(['set', 'global', 'telemetry.enabled', 'false']), 'state_unwritable', 3);
  assertOneLineError(await run(['set', 'globaluser', 'tok_abcdefghijklmnop']), 'state_unwritable', 3);
});

test.run();
