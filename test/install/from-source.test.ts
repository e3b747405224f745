// install.sh where nothing is installed yet: a fresh clone (no node_modules, no dist/) runs the README's
// Quick start line as written and installs its build dependencies, builds and installs by itself; an
// unpacked `npm pack` tarball installs from the dependencies bundled in it, with npm out of reach.
// Its own file (not installer.test.ts) so that npm test runs it beside the other installs: an npm ci
// of the whole lock file is the longest single step of the suite.
//
// No network: npm is told to stay offline and reads the machine's npm cache, and better-sqlite3's
// install script (prebuild-install) finds its compiled addon as a local prebuild, made from this
// checkout's node_modules, instead of downloading one or compiling sqlite for minutes.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanEnv, cleanup, tempDir } from '../helpers/cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SYSTEM_PATH = '/usr/local/bin:/usr/bin:/bin';
const VERSION: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;

let base: string;
let nodeDir: string;
test.before(() => {
  base = tempDir('tracer-install-source-');
  nodeDir = join(base, 'node-bin');
  mkdirSync(nodeDir);
  // A node outside the system folders, as nvm gives.
  symlinkSync(process.execPath, join(nodeDir, 'node'));
});
test.after(cleanup);

/** The machine's npm cache, where this checkout's npm install left every package of the lock file. */
function npmCache(): string {
  const found = spawnSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8', env: cleanEnv() }).stdout.trim();
  return found || join(homedir(), '.npm');
}

/** better-sqlite3's addon from this checkout as the prebuild that prebuild-install looks for (`<pkg>_local_prebuilds`). */
function localPrebuilds(): string {
  const addon = realpathSync(join(ROOT, 'node_modules/better-sqlite3'));
  const { version } = JSON.parse(readFileSync(join(addon, 'package.json'), 'utf8'));
  const dir = join(base, 'prebuilds');
  mkdirSync(dir, { recursive: true });
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const tar = spawnSync('tar', ['-czf', join(dir, name), '-C', addon, 'build/Release/better_sqlite3.node'], { encoding: 'utf8' });
  assert.is(tar.status, 0, tar.stderr);
  return dir;
}

/** A user with nothing installed: its own HOME and TRACER_HOME, npm offline on the machine's cache. */
function userEnv(name: string, extra: Record<string, string> = {}): { env: NodeJS.ProcessEnv; home: string; userHome: string } {
  const userHome = join(base, `${name}-user`);
  mkdirSync(userHome);
  const home = join(base, `${name}-tracer-home`);
  const env = cleanEnv();
  for (const key of Object.keys(env)) if (key.startsWith('npm_')) delete env[key];
  Object.assign(env, {
    PATH: `${nodeDir}:${SYSTEM_PATH}`,
    HOME: userHome,
    SHELL: '/bin/bash',
    TRACER_HOME: home,
    npm_config_cache: npmCache(),
    npm_config_offline: 'true',
    npm_config_update_notifier: 'false',
    ...extra,
  });
  return { env, home, userHome };
}

function ok(result: SpawnSyncReturns<string>, what: string) {
  assert.is(result.status, 0, `${what}: ${result.stderr}${result.stdout}`);
}

function installedVersion(home: string): SpawnSyncReturns<string> {
  return spawnSync(join(home, 'bin', 'tracer'), ['--version'], { cwd: '/', encoding: 'utf8', env: { PATH: join(home, 'bin') } });
}

test('a fresh clone: `sh install.sh --modify-path` installs the build dependencies, builds and installs', () => {
  // The files git tracks, as they stand in this checkout: what a clone of it holds, and nothing else.
  const clone = join(base, 'clone');
  const tracked = spawnSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' });
  ok(tracked, 'git ls-files');
  for (const file of tracked.stdout.split('\0').filter(Boolean)) {
    if (!existsSync(join(ROOT, file))) continue;
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    copyFileSync(join(ROOT, file), join(clone, file));
  }
  assert.not.ok(existsSync(join(clone, 'node_modules')));
  assert.not.ok(existsSync(join(clone, 'dist')));

  const { env, home, userHome } = userEnv('clone', { npm_config_better_sqlite3_local_prebuilds: localPrebuilds() });
  // The README's Quick start line, run where it says: in the clone.
  const result = spawnSync('sh', ['install.sh', '--modify-path'], { cwd: clone, env, encoding: 'utf8' });
  ok(result, 'sh install.sh --modify-path in a fresh clone');
  assert.match(result.stdout, /Installing the build dependencies in .* \(npm ci;/);
  assert.match(result.stdout, new RegExp(`Installed tracer ${VERSION.replaceAll('.', '\\.')} in `));
  assert.match(readFileSync(join(userHome, '.bashrc'), 'utf8'), /added by tracer install\.sh/);
  assert.ok(existsSync(join(clone, 'dist/cli/main.js')), 'the clone was built');

  const version = installedVersion(home);
  ok(version, 'the installed tracer --version');
  assert.is(version.stdout.trim(), VERSION);
  // The installed copy holds only production dependencies, copied from the clone's new node_modules.
  const [installed] = readdirSync(join(home, 'lib/versions'));
  const modules = readdirSync(join(home, 'lib/versions', installed!, 'node_modules'));
  assert.ok(modules.includes('better-sqlite3') && modules.includes('fastify'), modules.join(', '));
  assert.not.ok(modules.includes('typescript') || modules.includes('esbuild'), 'no build dependency is installed');
  const served = spawnSync(join(home, 'bin', 'tracer'), ['serve', '--help'], {
    cwd: '/',
    encoding: 'utf8',
    env: { PATH: join(home, 'bin') },
  });
  ok(served, 'tracer serve --help from the installed copy');
});

test('an unpacked npm pack tarball installs offline from its bundled dependencies, with no npm at all', () => {
  const packed = join(base, 'packed');
  mkdirSync(packed);
  // dist/ is built by npm test's pretest: packing need not build it again (prepare).
  const pack = spawnSync('npm', ['pack', '--ignore-scripts', '--pack-destination', packed, '--json'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...cleanEnv(), npm_config_update_notifier: 'false' },
  });
  ok(pack, 'npm pack');
  const [{ filename, bundled }] = JSON.parse(pack.stdout) as [{ filename: string; bundled: string[] }];
  assert.ok(bundled.includes('better-sqlite3') && bundled.includes('fastify'), `bundled: ${bundled.join(', ')}`);
  ok(spawnSync('tar', ['-xzf', join(packed, filename), '-C', packed], { encoding: 'utf8' }), 'tar -x');

  // Only node and the tools the script uses on PATH: no npm to fall back on.
  const tools = join(base, 'tools');
  mkdirSync(tools);
  symlinkSync(process.execPath, join(tools, 'node'));
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
    'pwd',
  ]) {
    const found = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
    if (found.startsWith('/')) symlinkSync(found, join(tools, tool));
  }
  const { env, home } = userEnv('tarball', { PATH: tools });
  const result = spawnSync('/bin/sh', [join(packed, 'package', 'install.sh')], { cwd: base, env, encoding: 'utf8' });
  ok(result, 'install.sh from the unpacked tarball');
  assert.not.match(result.stdout, /npm/);
  const version = installedVersion(home);
  ok(version, 'the installed tracer --version');
  assert.is(version.stdout.trim(), VERSION);
});

test.run();
