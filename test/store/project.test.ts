import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TracerError } from '../../src/core/errors.js';
import { findGit } from '../../src/store/git.js';
import { homePaths } from '../../src/store/home.js';
import { projectDir, registerProject, resolveProject, sanitizeProjectId } from '../../src/store/project.js';
import { cleanup, git, tempDir, tempRepo } from '../helpers/cli.js';
import { expectCode } from '../helpers/errors.js';

test.after(cleanup);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A linked worktree of `repo`, made by git itself. */
function addWorktree(repo: string): string {
  const path = join(tempDir('tracer-wt-'), 'linked');
  git(repo, 'worktree', 'add', '-q', '-b', `wt-${basename(dirname(path))}`, path);
  return path;
}

test('sanitizeProjectId flattens "/", ":" and "\\" (spec §2.2)', () => {
  assert.is(sanitizeProjectId('github.com/acme/web'), 'github.com_acme_web');
  assert.is(sanitizeProjectId('gitlab:acme:web'), 'gitlab_acme_web');
  assert.is(sanitizeProjectId('C:\\repos\\web'), 'C__repos_web');
  assert.is(sanitizeProjectId('0b6e2c1e-9f7a-4a53-8d0e-0c7c2f0c9d11'), '0b6e2c1e-9f7a-4a53-8d0e-0c7c2f0c9d11');
  assert.is(sanitizeProjectId('café-项目'), 'café-项目');
});

test('a sanitized id can never leave projects/: refused, or flattened to one safe segment', () => {
  const projects = homePaths('/home/someone/.tracer').projects;
  const nasty = [
    '..',
    '.',
    '',
    '...',
    '/',
    '//',
    '/etc/passwd',
    '../../etc',
    '..\\..\\etc',
    'a/../../b',
    'a\0b',
    '\0',
    ' ',
    '\n',
    'x'.repeat(1000),
    'é'.repeat(200),
    '中'.repeat(120),
    `${'.'.repeat(300)}`,
  ];
  for (const id of nasty) {
    let name: string;
    try {
      name = sanitizeProjectId(id);
    } catch (error) {
      assert.instance(error, TracerError, JSON.stringify(id));
      assert.is((error as TracerError).code, 'invalid_project_id');
      continue;
    }
    const label = JSON.stringify(id.slice(0, 20));
    assert.ok(name.length > 0, label);
    assert.not.match(name, /[/\\\0]/, label);
    assert.ok(name !== '.' && name !== '..', label);
    assert.ok(Buffer.byteLength(name, 'utf8') <= 255, `${label}: ${Buffer.byteLength(name)} bytes is over NAME_MAX`);
    assert.is(dirname(join(projects, name)), projects, label);
    assert.is(projectDir('/home/someone/.tracer', id), join(projects, name));
  }
  for (const id of ['..', '.', '', '...']) expectCode(() => sanitizeProjectId(id), 'invalid_project_id');
});

test('long ids that differ only at the end still get different folders', () => {
  const base = 'é'.repeat(190);
  assert.is.not(sanitizeProjectId(`${base}a`), sanitizeProjectId(`${base}b`));
  assert.is(sanitizeProjectId(`${base}a`), sanitizeProjectId(`${base}a`), 'and the same id always the same folder');
});

test('init writes one line to <git-common-dir>/tracer-id; later resolves agree; nothing in the working tree', () => {
  const repo = tempRepo();
  const home = join(tempDir(), 'home');
  const created = resolveProject({ cwd: repo, home, env: {}, create: true });
  assert.ok(created.created);
  assert.match(created.id, UUID);
  assert.is(created.anchor, join(repo, '.git', 'tracer-id'));
  assert.is(readFileSync(created.anchor, 'utf8'), `${created.id}\n`);
  assert.is(created.dir, join(home, 'projects', created.id));
  assert.equal(
    readdirSync(join(repo, '.git')).filter((name) => name.includes('tmp')),
    [],
    'no temp file left in the git dir',
  );

  const again = resolveProject({ cwd: repo, home, env: {} });
  assert.is(again.id, created.id);
  assert.not.ok(again.created);
  const sub = join(repo, 'src', 'deep');
  mkdirSync(sub, { recursive: true });
  assert.is(resolveProject({ cwd: sub, home, env: {} }).id, created.id, 'from a subfolder');
  assert.is(git(repo, 'status', '--porcelain', '--untracked-files=all'), '', 'no file in the working tree');
});

test('a linked worktree shares the anchor of the common dir, whichever side creates it', () => {
  const repo = tempRepo();
  const home = join(tempDir(), 'home');
  const linked = addWorktree(repo);
  const fromWorktree = resolveProject({ cwd: linked, home, env: {}, create: true });
  assert.ok(fromWorktree.created);
  assert.is(fromWorktree.anchor, join(repo, '.git', 'tracer-id'));
  assert.is(fromWorktree.git.worktree, linked);
  assert.is(fromWorktree.git.gitDir, join(repo, '.git', 'worktrees', basename(linked)));
  assert.is(fromWorktree.git.commonDir, join(repo, '.git'));
  assert.not.ok(existsSync(join(fromWorktree.git.gitDir, 'tracer-id')), 'not in the per-worktree git dir');

  const fromMain = resolveProject({ cwd: join(repo), home, env: {} });
  assert.is(fromMain.id, fromWorktree.id);
  assert.is(fromMain.dir, fromWorktree.dir);
  assert.is(git(linked, 'status', '--porcelain', '--untracked-files=all'), '');
  assert.equal(readdirSync(linked), ['.git']);
  assert.not.ok(readFileSync(join(linked, '.git'), 'utf8').includes(fromMain.id), 'the .git pointer file does not encode the id');
});

test('resolving without create: project_not_initialized; outside git: not_a_git_repository', () => {
  const repo = tempRepo();
  const home = join(tempDir(), 'home');
  expectCode(() => resolveProject({ cwd: repo, home, env: {} }), 'project_not_initialized');
  assert.not.ok(existsSync(join(repo, '.git', 'tracer-id')));
  const outside = tempDir('tracer-not-git-');
  expectCode(() => resolveProject({ cwd: outside, home, env: {}, create: true }), 'not_a_git_repository');
});

test('the anchor is read as one trimmed line; an anchor that cannot name a folder is refused', () => {
  const repo = tempRepo();
  const home = join(tempDir(), 'home');
  const anchor = join(repo, '.git', 'tracer-id');
  writeFileSync(anchor, 'github.com/acme/web\r\n');
  const project = resolveProject({ cwd: repo, home, env: {} });
  assert.is(project.id, 'github.com/acme/web');
  assert.is(project.dir, join(home, 'projects', 'github.com_acme_web'));
  for (const bad of ['', '\n', '..\n', '.', 'has space\n', 'x'.repeat(201)]) {
    writeFileSync(anchor, bad);
    expectCode(() => resolveProject({ cwd: repo, home, env: {}, create: true }), 'invalid_project_id');
    assert.is(readFileSync(anchor, 'utf8'), bad, 'a bad anchor is never overwritten');
  }
});

test('two or more processes creating the anchor at once agree on one id', async () => {
  const repo = tempRepo();
  const home = join(tempDir(), 'home');
  const worker = fileURLToPath(new URL('./fixtures/resolve-worker.ts', import.meta.url));
  const children = Array.from({ length: 4 }, () =>
    spawn(process.execPath, ['--import', 'tsx', worker, repo, home], { stdio: ['pipe', 'pipe', 'inherit'] }),
  );
  const outputs = children.map(
    (child) =>
      new Promise<string>((resolve, reject) => {
        let text = '';
        child.stdout!.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          if (text === 'ready\n') readyCount.resolveOne();
        });
        child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`worker exited ${code}: ${text}`))));
      }),
  );
  const readyCount = countdown(children.length);
  await readyCount.done;
  for (const child of children) child.stdin!.end('go\n');
  const results = (await Promise.all(outputs)).map((text) => JSON.parse(text.split('\n')[1]!) as { id: string; created: boolean });
  assert.is(new Set(results.map((result) => result.id)).size, 1, JSON.stringify(results));
  assert.is(results.filter((result) => result.created).length, 1, 'exactly one process wrote the anchor');
  assert.is(readFileSync(join(repo, '.git', 'tracer-id'), 'utf8'), `${results[0]!.id}\n`);
  assert.equal(
    readdirSync(join(repo, '.git')).filter((name) => name.startsWith('tracer-id.')),
    [],
    'temp files cleaned up',
  );
});

function countdown(count: number) {
  let resolveDone!: () => void;
  const done = new Promise<void>((resolve) => (resolveDone = resolve));
  let left = count;
  return {
    done,
    resolveOne() {
      left -= 1;
      if (left === 0) resolveDone();
    },
  };
}

test('findGit honours GIT_DIR (absolute or relative to cwd), GIT_WORK_TREE and GIT_COMMON_DIR', () => {
  const repo = tempRepo();
  const elsewhere = tempDir('tracer-elsewhere-');
  const absolute = findGit(elsewhere, { GIT_DIR: join(repo, '.git') });
  assert.equal(absolute, { worktree: elsewhere, gitDir: join(repo, '.git'), commonDir: join(repo, '.git') });

  const relativeDir = relative(elsewhere, join(repo, '.git'));
  assert.is(findGit(elsewhere, { GIT_DIR: relativeDir })?.gitDir, join(repo, '.git'));
  assert.is(findGit(elsewhere, { GIT_DIR: join(repo, '.git'), GIT_WORK_TREE: repo })?.worktree, repo);

  const linked = addWorktree(repo);
  const linkedGitDir = join(repo, '.git', 'worktrees', basename(linked));
  assert.is(findGit(elsewhere, { GIT_DIR: linkedGitDir })?.commonDir, join(repo, '.git'), 'commondir followed from GIT_DIR');
  assert.is(
    findGit(elsewhere, { GIT_DIR: join(repo, '.git'), GIT_COMMON_DIR: join(elsewhere, 'common') })?.commonDir,
    join(elsewhere, 'common'),
  );
  assert.is(findGit(elsewhere, { GIT_DIR: join(elsewhere, 'no-such-git-dir') }), undefined);

  // GIT_DIR wins over the repository cwd is in.
  const other = tempRepo();
  assert.is(findGit(join(other), { GIT_DIR: join(repo, '.git') })?.commonDir, join(repo, '.git'));
  assert.is(findGit(other, {})?.commonDir, join(other, '.git'));
  assert.is(findGit(elsewhere, {}), undefined);
});

test('resolveProject under GIT_DIR anchors in that repository', () => {
  const repo = tempRepo();
  const home = join(tempDir(), 'home');
  const elsewhere = tempDir('tracer-elsewhere-');
  const project = resolveProject({ cwd: elsewhere, home, env: { GIT_DIR: join(repo, '.git') }, create: true });
  assert.is(project.anchor, join(repo, '.git', 'tracer-id'));
  assert.is(resolveProject({ cwd: repo, home, env: {} }).id, project.id);
});

test('a .git file with a relative gitdir (submodule layout) is followed', () => {
  const repo = tempRepo();
  const holder = tempDir('tracer-sub-');
  const moved = join(holder, 'modules', 'sub');
  mkdirSync(dirname(moved), { recursive: true });
  git(holder, 'clone', '-q', '--bare', repo, moved);
  const work = join(holder, 'sub');
  mkdirSync(work);
  writeFileSync(join(work, '.git'), 'gitdir: ../modules/sub\n');
  const found = findGit(join(work), {});
  assert.equal(found, { worktree: work, gitDir: moved, commonDir: moved });
});

test('registerProject records each working tree once in projects.json (mode 0600)', async () => {
  const repo = tempRepo();
  const home = join(tempDir(), 'home');
  const linked = addWorktree(repo);
  const main = resolveProject({ cwd: repo, home, env: {}, create: true });
  await registerProject(home, main);
  await registerProject(home, main);
  await registerProject(home, resolveProject({ cwd: linked, home, env: {} }));
  const registry = JSON.parse(readFileSync(homePaths(home).registry, 'utf8'));
  assert.equal(registry.projects[main.id].repo_paths, [repo, linked]);
  assert.is(registry.projects[main.id].dir, main.dir);
  assert.is(statSync(homePaths(home).registry).mode & 0o777, 0o600);
});

test.run();
