import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, git, runMain, sandbox, tempDir } from '../helpers/cli.js';
import { assertOk, assertOneLineError } from './expect.js';

test.after(cleanup);

const projectIdIn = (stdout: string) => /tracer project (\S+)/.exec(stdout)?.[1];

test('init is idempotent, works from a subfolder and a linked worktree, and writes nothing in the working tree but the agent hook settings', async () => {
  const { home, repo, run } = sandbox();
  const before = readdirSync(repo).sort();

  const first = await run(['init']);
  assertOk(first);
  assert.match(first.stdout, /^Initialized tracer project /);
  const id = projectIdIn(first.stdout);
  assert.ok(id);

  const anchor = join(repo, '.git', 'tracer-id');
  assert.is(readFileSync(anchor, 'utf8'), `${id}\n`);
  assert.ok(statSync(join(home, 'projects', id!)).isDirectory());
  const registry = JSON.parse(readFileSync(join(home, 'projects.json'), 'utf8'));
  assert.equal(registry.projects[id!].repo_paths, [repo]);

  const again = await run(['init']);
  assertOk(again);
  assert.match(again.stdout, /^Already initialized: tracer project /);
  assert.is(projectIdIn(again.stdout), id);

  const sub = join(repo, 'src', 'deep');
  mkdirSync(sub, { recursive: true });
  const fromSub = await run(['init'], { cwd: sub });
  assertOk(fromSub);
  assert.is(projectIdIn(fromSub.stdout), id);

  const worktree = join(tempDir('tracer-wt-'), 'wt');
  git(repo, 'worktree', 'add', '-q', worktree);
  const fromWorktree = await run(['init'], { cwd: worktree });
  assertOk(fromWorktree);
  assert.match(fromWorktree.stdout, /^Already initialized/);
  assert.is(projectIdIn(fromWorktree.stdout), id);
  assert.not.ok(
    readdirSync(worktree).some((name) => name.includes('tracer')),
    'the worktree holds no anchor',
  );

  const agentFolders = ['.claude', '.codex', '.cursor'];
  assert.equal(
    readdirSync(repo)
      .filter((name) => name !== 'src' && !agentFolders.includes(name))
      .sort(),
    before,
  );
  assert.is(
    git(repo, 'status', '--porcelain', '--untracked-files=all'),
    '?? .claude/settings.json\n?? .codex/hooks.json\n?? .cursor/hooks.json',
    'the anchor is not in the working tree; only the agent hook settings (spec §2.4) are',
  );
});

test('init outside a git repository fails with one line and writes nothing', async () => {
  const home = join(tempDir('tracer-home-'), 'home');
  const outside = tempDir('tracer-plain-');
  const result = await runMain(['init'], { cwd: outside, home });
  assertOneLineError(result, 'not_a_git_repository');
  assert.match(result.stderr, /not inside a git repository/);
  assert.equal(readdirSync(outside), []);
});

test.run();
