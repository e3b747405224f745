// readHeadCommit answers as `git rev-parse HEAD` does, or leaves the question to git.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { findGit, readHeadCommit } from '../../src/store/git.js';
import { cleanEnv, cleanup, tempDir } from '../helpers/cli.js';

test.after(cleanup);

const run = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, env: cleanEnv(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

function repo(): string {
  const dir = tempDir('tracer-head-');
  run(dir, 'init', '-q', '-b', 'main');
  run(dir, 'config', 'user.email', 'a@example.com');
  run(dir, 'config', 'user.name', 'A');
  return dir;
}

function commit(dir: string, text: string): string {
  writeFileSync(join(dir, 'f.txt'), text);
  run(dir, 'add', 'f.txt');
  run(dir, 'commit', '-q', '-m', text);
  return run(dir, 'rev-parse', 'HEAD');
}

const head = (cwd: string) => readHeadCommit(findGit(cwd, {})!);

test('a branch with a loose ref, then the same branch packed', () => {
  const dir = repo();
  const id = commit(dir, 'one');
  assert.is(head(dir), id);
  run(dir, 'pack-refs', '--all');
  assert.is(head(dir), id, 'read from packed-refs');
  const next = commit(dir, 'two');
  assert.is(head(dir), next, 'a loose ref wins over its packed line');
});

test('a detached HEAD, and a linked worktree on its own branch', () => {
  const dir = repo();
  const first = commit(dir, 'one');
  const second = commit(dir, 'two');
  run(dir, 'checkout', '-q', '--detach', first);
  assert.is(head(dir), first);
  const other = join(tempDir('tracer-head-wt-'), 'wt');
  run(dir, 'worktree', 'add', '-q', '-b', 'side', other, second);
  assert.is(head(other), second, "the worktree's own HEAD, its branch in the shared refs");
  assert.is(head(dir), first, "the main worktree's HEAD is its own");
});

test('an unborn branch, or a HEAD git would have to read, is left to git', () => {
  const dir = repo();
  assert.is(head(dir), undefined, 'no commit yet');
  commit(dir, 'one');
  writeFileSync(join(dir, '.git', 'HEAD'), 'ref: refs/remotes/origin/main\n');
  assert.is(head(dir), undefined, 'a symbolic ref outside refs/heads');
  writeFileSync(join(dir, '.git', 'HEAD'), 'ref: refs/heads/../../config\n');
  assert.is(head(dir), undefined, 'a ref that climbs out of refs/');
});

test.run();
