// install.sh end to end: install into a temporary home from a source folder that is then deleted, run the
// launchers with no PATH beyond them, capture through an agent hook and a commit, upgrade, survive failures
// (unwritable home, missing or old node, a killed install, two installs at once), uninstall. No network:
// npm is told to stay offline, and the source has its production dependencies in node_modules.
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { agentHookCommand, parseAgentHookCommand, sameHookCommand } from '../../src/capture/install/invocation.js';
import { cleanEnv, cleanup, settleSpool, tempDir } from '../helpers/cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SYSTEM_PATH = '/usr/local/bin:/usr/bin:/bin';
const FIXTURES = join(ROOT, 'test/fixtures/hooks/claude-code');

interface World {
  base: string;
  home: string;
  userHome: string;
  nodeDir: string;
  repo: string;
}
let world: World;

test.before(() => {
  const base = tempDir('tracer-install-');
  const nodeDir = join(base, 'node-bin');
  mkdirSync(nodeDir);
  // A node outside the system folders, as nvm gives: the launchers must record it, not find it on PATH.
  symlinkSync(process.execPath, join(nodeDir, 'node'));
  const userHome = join(base, 'user');
  mkdirSync(userHome);
  world = { base, home: join(base, 'tracer home'), userHome, nodeDir, repo: join(base, 'repo') };
});
test.after(cleanup);

/** What `npm pack` ships (package.json `files`), plus the production node_modules a clone has after npm install. */
function sourceCopy(version?: string): string {
  const dir = join(tempDir('tracer-install-source-'), 'tracer');
  mkdirSync(dir);
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  for (const entry of ['package.json', ...pkg.files]) cpSync(join(ROOT, entry), join(dir, entry), { recursive: true });
  symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(dir, 'node_modules'));
  if (version) writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...pkg, version }, null, 2));
  return dir;
}

function installEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = cleanEnv();
  for (const key of Object.keys(env)) if (key.startsWith('npm_')) delete env[key];
  return {
    ...env,
    PATH: `${world.nodeDir}:${SYSTEM_PATH}`,
    HOME: world.userHome,
    SHELL: '/bin/bash',
    TRACER_HOME: world.home,
    npm_config_offline: 'true',
    ...extra,
  };
}

function install(source: string, args: string[] = [], extra: Record<string, string> = {}): SpawnSyncReturns<string> {
  return spawnSync('/bin/sh', [join(source, 'install.sh'), ...args], { cwd: world.base, env: installEnv(extra), encoding: 'utf8' });
}

/** Runs what a user or an agent runs, with only $TRACER_HOME/bin (and, when asked, the system folders) on PATH. */
function launch(command: string, args: string[], options: { cwd?: string; input?: string; system?: boolean } = {}) {
  return spawnSync(join(world.home, 'bin', command), args, {
    cwd: options.cwd ?? world.base,
    input: options.input,
    encoding: 'utf8',
    env: { PATH: join(world.home, 'bin') + (options.system ? `:${SYSTEM_PATH}` : ''), HOME: world.userHome, NO_COLOR: '1' },
  });
}

function ok(result: SpawnSyncReturns<string>, what: string) {
  assert.is(result.status, 0, `${what}: ${result.stderr}${result.stdout}`);
}

function oneLineFailure(result: SpawnSyncReturns<string>, pattern: RegExp) {
  assert.is.not(result.status, 0, result.stdout);
  const lines = result.stderr.trim().split('\n');
  assert.is(lines.length, 1, result.stderr);
  assert.match(lines[0]!, /^install\.sh: .+; .+/);
  assert.match(lines[0]!, pattern);
}

const versions = () => readdirSync(join(world.home, 'lib/versions'));
const current = () => readlinkSync(join(world.home, 'lib/current'));

/** Every byte of the recorded data (everything but bin/, lib/, viewer/), to prove the installer never touches it. */
function dataDigest(): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const rel = relative(world.home, path);
      if (['bin', 'lib', 'viewer'].includes(rel)) continue;
      hash.update(rel);
      if (statSync(path).isDirectory()) walk(path);
      else hash.update(readFileSync(path));
    }
  };
  walk(world.home);
  return hash.digest('hex');
}

function gitCommit(args: string[]) {
  const result = spawnSync('git', args, {
    cwd: world.repo,
    encoding: 'utf8',
    env: {
      PATH: `${join(world.home, 'bin')}:${SYSTEM_PATH}`,
      HOME: world.userHome,
      GIT_AUTHOR_NAME: 'Test',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 'Test',
      GIT_COMMITTER_EMAIL: 't@example.com',
    },
  });
  ok(result, `git ${args.join(' ')}`);
  // git's hooks fold in the background: what follows reads tracer's files, as a tracer command would after folding first.
  settleSpool(world.home);
}

test('installs launchers, a versioned lib/ and the viewer; the copy runs with its source deleted and only its bin/ on PATH', () => {
  const source = sourceCopy();
  const result = install(source);
  ok(result, 'install');
  assert.not.match(result.stdout, /npm install/, 'the production dependencies are copied, not fetched');
  assert.match(result.stdout, /is not on your PATH\. Add this line to .*\.bashrc/);
  assert.ok(result.stdout.includes(`export PATH='${world.home}/bin':"$PATH"`), result.stdout);
  rmSync(dirname(source), { recursive: true, force: true });

  assert.is(statSync(world.home).mode & 0o777, 0o700, 'a new home is private');
  assert.is(versions().length, 1);
  assert.is(current(), `versions/${versions()[0]}`);
  assert.ok(existsSync(join(world.home, 'viewer/assets/app.js')), 'viewer/ holds the built viewer');
  for (const launcher of ['tracer', 't', 'tracer-viewer']) {
    const text = readFileSync(join(world.home, 'bin', launcher), 'utf8');
    assert.ok(text.includes(`tracer_node='${join(world.nodeDir, 'node')}'`), `${launcher} records the node it was installed with`);
    assert.is(statSync(join(world.home, 'bin', launcher)).mode & 0o777, 0o755);
  }
  const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
  const fromElsewhere = launch('tracer', ['--version'], { cwd: '/' });
  ok(fromElsewhere, 'tracer --version');
  assert.is(fromElsewhere.stdout.trim(), version);
  assert.is(launch('t', ['--version']).stdout.trim(), version);
  const viewerHelp = launch('tracer-viewer', ['--help']);
  ok(viewerHelp, 'tracer-viewer --help');
  assert.match(viewerHelp.stdout, /tracer view/);
});

test('tracer init from the installed copy names the launcher; an agent hook and a commit are captured', () => {
  mkdirSync(join(world.repo, 'src'), { recursive: true });
  spawnSync('git', ['init', '-q', '-b', 'main'], { cwd: world.repo });
  gitCommit(['commit', '-q', '--allow-empty', '-m', 'initial']);
  ok(launch('tracer', ['init', '--agents', 'claude-code'], { cwd: world.repo, system: true }), 'tracer init');

  const launcher = join(world.home, 'bin/tracer');
  const settings = JSON.parse(readFileSync(join(world.repo, '.claude/settings.json'), 'utf8'));
  const command: string = settings.hooks.PostToolUse[0].hooks[0].command;
  assert.is(command, `'${launcher}' hook claude-code PostToolUse`);
  assert.ok(readFileSync(join(world.repo, '.git/hooks/post-commit'), 'utf8').includes(`tracer_launcher='${launcher}'`));

  const transcript = join(world.base, 'transcript.jsonl');
  cpSync(join(FIXTURES, 'transcript.jsonl'), transcript);
  writeFileSync(join(world.repo, 'src/greet.ts'), 'export function greet(name: string): string {\n  return `Hello, ${name}!`;\n}\n');
  for (const [event, fixture] of [
    ['SessionStart', 'SessionStart.json'],
    ['PostToolUse', 'PostToolUse.Write.json'],
  ] as const) {
    const payload = readFileSync(join(FIXTURES, fixture), 'utf8')
      .replaceAll('__REPO__', world.repo)
      .replaceAll('__TRANSCRIPT__', transcript);
    const hook = settings.hooks[event][0].hooks[0].command;
    const ran = spawnSync('/bin/sh', ['-c', hook], {
      cwd: world.repo,
      input: payload,
      encoding: 'utf8',
      env: { PATH: SYSTEM_PATH, HOME: world.userHome },
    });
    ok(ran, `agent hook ${event}`);
  }
  gitCommit(['add', 'src/greet.ts']);
  gitCommit(['commit', '-q', '-m', 'greet']);
  const shown = launch('tracer', ['show', 'HEAD'], { cwd: world.repo, system: true });
  ok(shown, 'tracer show');
  assert.match(shown.stdout, /AI 3 \(100%\)/);
});

test('upgrade: a newer install.sh switches lib/current, removes the old version, touches no data and no repository', () => {
  const before = versions()[0];
  const settings = readFileSync(join(world.repo, '.claude/settings.json'), 'utf8');
  const postCommit = readFileSync(join(world.repo, '.git/hooks/post-commit'), 'utf8');
  const data = dataDigest();
  assert.ok(existsSync(join(world.home, 'projects')), 'the capture wrote data');

  const result = install(sourceCopy('9.9.9'), ['--modify-path']);
  ok(result, 'upgrade');
  assert.is(versions().length, 1);
  assert.is.not(versions()[0], before);
  assert.match(current(), /^versions\/9\.9\.9-/);
  assert.is(launch('tracer', ['--version']).stdout.trim(), '9.9.9');
  assert.is(dataDigest(), data);
  assert.is(readFileSync(join(world.repo, '.claude/settings.json'), 'utf8'), settings);
  assert.is(readFileSync(join(world.repo, '.git/hooks/post-commit'), 'utf8'), postCommit);

  const bashrc = readFileSync(join(world.userHome, '.bashrc'), 'utf8');
  assert.is(bashrc.split('\n').filter((line) => line.includes(`${world.home}/bin`)).length, 1);
  ok(install(sourceCopy('9.9.9'), ['--modify-path']), 'the same install again');
  assert.is(readFileSync(join(world.userHome, '.bashrc'), 'utf8'), bashrc, '--modify-path adds its line once');
});

test('an unwritable home, a missing node or an old node: one line, non-zero, the previous install intact', () => {
  const source = sourceCopy('10.0.0');
  const installed = current();
  const file = join(world.base, 'a-file');
  writeFileSync(file, '');
  oneLineFailure(install(source, [], { TRACER_HOME: join(file, 'home') }), /cannot write to .*a-file\/home/);

  const oldNode = join(world.base, 'old-node');
  mkdirSync(oldNode);
  writeFileSync(join(oldNode, 'node'), '#!/bin/sh\necho v18.19.0\n', { mode: 0o755 });
  oneLineFailure(install(source, [], { PATH: `${oldNode}:${SYSTEM_PATH}` }), /node 18\.19\.0 .* too old, tracer needs 20\.5/);

  // Only the tools the script uses, and no node among them.
  const tools = join(world.base, 'tools');
  mkdirSync(tools);
  for (const tool of [
    'dirname',
    'sed',
    'head',
    'cat',
    'mkdir',
    'rm',
    'mv',
    'cp',
    'ln',
    'find',
    'date',
    'chmod',
    'grep',
    'sort',
    'basename',
    'uname',
    'sleep',
  ]) {
    const found = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
    if (found) symlinkSync(found, join(tools, tool));
  }
  oneLineFailure(install(source, [], { PATH: tools }), /node was not found on PATH; install Node\.js 20\.5 or newer/);

  assert.is(current(), installed);
  assert.is(launch('tracer', ['--version']).stdout.trim(), '9.9.9');
});

test('a killed install leaves the previous one working; the next install clears its leftovers and its lock', async () => {
  const source = sourceCopy('10.0.0');
  const installed = current();
  const child = spawn('/bin/sh', [join(source, 'install.sh')], { cwd: world.base, env: installEnv(), detached: true, stdio: 'ignore' });
  let finished = false;
  const exited = new Promise((resolve) => child.on('exit', resolve)).then(() => (finished = true));
  const versionsDir = join(world.home, 'lib/versions');
  // Killed while it copies the dependencies into its staging folder.
  const copying = () =>
    readdirSync(versionsDir).some((name) => name.startsWith('.staging-') && existsSync(join(versionsDir, name, 'node_modules')));
  while (!finished && !copying()) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.not.ok(finished, 'the install ended before it could be killed mid-copy');
  process.kill(-child.pid!, 'SIGKILL');
  await exited;
  assert.is(current(), installed);
  assert.is(launch('tracer', ['--version']).stdout.trim(), '9.9.9');
  assert.ok(existsSync(join(world.home, '.install.lock')), 'the killed install left its lock');

  ok(install(source), 'install after the killed one');
  assert.is(launch('tracer', ['--version']).stdout.trim(), '10.0.0');
  assert.equal(readdirSync(versionsDir).length, 1, readdirSync(versionsDir).join(', '));
  assert.not.ok(existsSync(join(world.home, '.install.lock')));
});

test('two installs at once: the lock serializes them and one consistent version remains', async () => {
  const source = sourceCopy('10.0.1');
  const run = () =>
    new Promise<number | null>((resolve) => {
      const child = spawn('/bin/sh', [join(source, 'install.sh')], { cwd: world.base, env: installEnv(), stdio: 'ignore' });
      child.on('exit', resolve);
    });
  assert.equal(await Promise.all([run(), run()]), [0, 0]);
  assert.is(versions().length, 1);
  assert.is(current(), `versions/${versions()[0]}`);
  assert.is(launch('tracer', ['--version']).stdout.trim(), '10.0.1');
});

test('--uninstall removes bin/, lib/, viewer/ and the PATH line, keeps every byte of data and says where it is', () => {
  const data = dataDigest();
  writeFileSync(join(world.userHome, '.bashrc'), `alias ll='ls -l'\n${readFileSync(join(world.userHome, '.bashrc'), 'utf8')}`);
  const result = install(sourceCopy(), ['--uninstall']);
  ok(result, 'uninstall');
  for (const gone of ['bin', 'lib', 'viewer']) assert.not.ok(existsSync(join(world.home, gone)), `${gone} removed`);
  assert.is(dataDigest(), data);
  assert.ok(result.stdout.includes(world.home), result.stdout);
  assert.match(result.stdout, /Recorded data is kept/);
  assert.is(readFileSync(join(world.userHome, '.bashrc'), 'utf8').trim(), "alias ll='ls -l'");
});

test("a launcher command is recognized as tracer's, and stays the same command across node or version changes", () => {
  const launcher = join(world.base, 'a home', 'bin', 'tracer');
  const command = agentHookCommand({ launcher }, 'codex', 'PostToolUse');
  assert.is(command, `'${launcher}' hook codex PostToolUse`);
  assert.equal(parseAgentHookCommand(command), { agent: 'codex', event: 'PostToolUse' });
  assert.ok(sameHookCommand(command, agentHookCommand({ launcher }, 'codex', 'PostToolUse')));
  assert.not.ok(
    sameHookCommand(command, agentHookCommand({ node: process.execPath, script: join(ROOT, 'bin/tracer.js') }, 'codex', 'PostToolUse')),
  );
});

test.run();
