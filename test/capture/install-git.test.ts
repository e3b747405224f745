import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanEnv, cleanup, git, sandbox, settleSpool, tempDir } from '../helpers/cli.js';
import { assertOk, assertOneLineError } from '../cli/expect.js';
import { parseSpoolEntry } from '../../src/capture/spool/entry.js';

test.after(cleanup);

const read = (path: string) => readFileSync(path, 'utf8');
const mode = (path: string) => statSync(path).mode & 0o777;

/**
 * git as a user runs it, with the hooks' tracer bound to the test's home (never the real ~/.tracer). With a stand-in
 * tracer (useFakeTracer) nothing folds what the hooks spool: `settle: false`, and the test reads the spool itself.
 */
function gitAs(home: string, cwd: string, args: string[], extraEnv: Record<string, string> = {}, settle = true) {
  const result = spawnSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...cleanEnv(),
      TRACER_HOME: home,
      GIT_AUTHOR_NAME: 'Test',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 'Test',
      GIT_COMMITTER_EMAIL: 't@example.com',
      ...extraEnv,
    },
  });
  // git's hooks fold in the background: what follows reads tracer's files, as a tracer command would after folding first.
  if (settle) settleSpool(home);
  return result;
}

/** What git's hooks spooled in `home`, oldest first: the hook, the folder it ran in, what git said. */
function gitEntries(home: string): Array<{ event: string; cwd: string; said: string }> {
  const dir = join(home, 'spool');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.git.event'))
    .map((name) => ({ name, mtime: statSync(join(dir, name), { bigint: true }).mtimeNs }))
    .sort((a, b) => (a.mtime < b.mtime ? -1 : a.mtime > b.mtime ? 1 : 0))
    .map(({ name }) => {
      const entry = parseSpoolEntry(readFileSync(join(dir, name)))!;
      assert.is(entry.agent, 'git');
      return { event: entry.event, cwd: entry.cwd, said: entry.payload.kind === 'ok' ? entry.payload.text : '' };
    });
}

/** The stand-in's calls once it has been called `count` times: the fold is started in the background. */
async function callsWhen(log: string, count: number) {
  for (let waited = 0; calls(log).length < count && waited < 30_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
  return calls(log);
}

/**
 * Points an installed hook at a stand-in tracer that logs its arguments and stdin
 * (or fails loudly), so the hook's own plumbing is checked apart from commit-link.
 */
function useFakeTracer(hookPath: string, behaviour: 'log' | 'fail' | 'missing'): string {
  const dir = tempDir('tracer-fake-');
  const log = join(dir, 'calls.log');
  const script = join(dir, 'tracer.js');
  if (behaviour !== 'missing') {
    writeFileSync(
      script,
      behaviour === 'log'
        ? `const fs = require('node:fs'); const input = fs.readFileSync(0, 'utf8'); fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify({ args: process.argv.slice(2), input }) + '\\n');`
        : `console.log('noise on stdout'); console.error('tracer exploded'); process.exit(9);`,
    );
  }
  writeFileSync(hookPath, read(hookPath).replace(/^tracer_script=.*$/m, `tracer_script=${script}`));
  return log;
}

/** The calls the stand-in logged so far; the background fold may be writing its line as it is read (a line not yet whole is left for the next look). */
const calls = (log: string) =>
  existsSync(log)
    ? read(log)
        .split('\n')
        .filter((line) => line.endsWith('}'))
        .map((line) => JSON.parse(line))
    : [];

test('fresh hooks are executable, name commit-link and rewrite-ledger, and a second init leaves them byte-identical', async () => {
  const { repo, run } = sandbox();
  assertOk(await run(['init', '--agents', 'none']));
  const postCommit = join(repo, '.git/hooks/post-commit');
  const postRewrite = join(repo, '.git/hooks/post-rewrite');
  assert.is(mode(postCommit), 0o755);
  assert.is(mode(postRewrite), 0o755);
  assert.match(read(postCommit), / commit-link /);
  assert.match(read(postRewrite), / rewrite-ledger "\$1"/);
  const before = [read(postCommit), read(postRewrite)];
  const again = await run(['init', '--agents', 'none']);
  assertOk(again);
  assert.match(again.stdout, /post-commit\s+unchanged/);
  assert.equal([read(postCommit), read(postRewrite)], before);
});

test("the hooks spool the commit, the rewrite kind and git's old/new lines, start the fold in the background, and print nothing", async () => {
  const { home, repo, run } = sandbox();
  assertOk(await run(['init', '--agents', 'none']));
  const commitLog = useFakeTracer(join(repo, '.git/hooks/post-commit'), 'log');
  const rewriteLog = useFakeTracer(join(repo, '.git/hooks/post-rewrite'), 'log');

  writeFileSync(join(repo, 'a.txt'), 'one\n');
  git(repo, 'add', 'a.txt');
  const commit = gitAs(home, repo, ['commit', '-q', '-m', 'add a'], {}, false);
  assert.is(commit.status, 0, commit.stderr);
  assert.is(commit.stdout + commit.stderr, '');
  const first = git(repo, 'rev-parse', 'HEAD');
  assert.equal(gitEntries(home), [{ event: 'post-commit', cwd: repo, said: `${first}\n` }]);
  assert.equal(
    (await callsWhen(commitLog, 1)).map((call) => call.args),
    [['hook', '--fold']],
  );

  const amend = gitAs(home, repo, ['commit', '-q', '--amend', '-m', 'add a, amended'], {}, false);
  assert.is(amend.status, 0, amend.stderr);
  const now = git(repo, 'rev-parse', 'HEAD');
  // An amend is a commit too: git runs post-commit, then post-rewrite; the fold takes them in that order.
  assert.equal(gitEntries(home).slice(1), [
    { event: 'post-commit', cwd: repo, said: `${now}\n` },
    { event: 'post-rewrite', cwd: repo, said: `amend\n${first} ${now}\n` },
  ]);
  assert.equal((await callsWhen(rewriteLog, 1))[0].args, ['hook', '--fold']);
  // The amend's post-commit started its fold in the background too: let it be logged before the next commit's calls.
  assert.equal((await callsWhen(commitLog, 2))[1].args, ['hook', '--fold']);

  // TRACER_HOOK_SYNC=1: recorded before git returns, by the commands of before.
  const synced = gitAs(home, repo, ['commit', '-q', '--amend', '-m', 'add a, again'], { TRACER_HOOK_SYNC: '1' }, false);
  assert.is(synced.status, 0, synced.stderr);
  assert.equal(
    calls(commitLog).map((call) => call.args),
    [['hook', '--fold'], ['hook', '--fold'], ['commit-link']],
  );
  const rewrite = calls(rewriteLog).at(-1);
  assert.equal(rewrite.args, ['rewrite-ledger', 'amend']);
  assert.is(rewrite.input, `${now} ${git(repo, 'rev-parse', 'HEAD')}\n`);
  assert.is(gitEntries(home).length, 3, 'nothing more spooled');
});

test('a failing or missing tracer never fails a commit and stays silent', async () => {
  const { home, repo, run } = sandbox();
  assertOk(await run(['init', '--agents', 'none']));
  const hook = join(repo, '.git/hooks/post-commit');
  useFakeTracer(hook, 'fail');
  const failing = gitAs(home, repo, ['commit', '-q', '--allow-empty', '-m', 'tracer fails'], {}, false);
  assert.is(failing.status, 0);
  assert.is(failing.stdout + failing.stderr, '');

  useFakeTracer(hook, 'missing');
  const missing = gitAs(home, repo, ['commit', '-q', '--allow-empty', '-m', 'tracer gone'], { PATH: '/usr/bin:/bin' }, false);
  assert.is(missing.status, 0);
  assert.is(missing.stdout + missing.stderr, '');
  const direct = spawnSync(hook, [], { cwd: repo, encoding: 'utf8', env: { ...cleanEnv(), PATH: '/usr/bin:/bin' } });
  assert.is(direct.status, 0);
});

test('an existing hook is chained: it still runs first with the same input, its exit status is kept, and uninstall restores it byte for byte', async () => {
  const { home, repo, run } = sandbox();
  const hooks = join(repo, '.git/hooks');
  const userLog = join(tempDir('tracer-user-log-'), 'user.log');
  const userCommit = `#!/bin/sh\necho "user post-commit" >> '${userLog}'\nexit 3\n`;
  const userRewrite = `#!/usr/bin/env node\nconst fs = require('node:fs');\nfs.appendFileSync('${userLog}', 'user post-rewrite ' + process.argv[2] + ' ' + fs.readFileSync(0, 'utf8'));\n`;
  writeFileSync(join(hooks, 'post-commit'), userCommit, { mode: 0o755 });
  writeFileSync(join(hooks, 'post-rewrite'), userRewrite, { mode: 0o750 });

  const result = await run(['init', '--agents', 'none']);
  assertOk(result);
  assert.match(result.stdout, /post-commit\s+chained/);
  assert.is(read(join(hooks, 'post-commit.pre-tracer')), userCommit);
  useFakeTracer(join(hooks, 'post-rewrite'), 'log');
  useFakeTracer(join(hooks, 'post-commit'), 'log');

  const commit = gitAs(home, repo, ['commit', '-q', '--allow-empty', '-m', 'second'], {}, false);
  assert.is(commit.status, 0, commit.stderr);
  const old = git(repo, 'rev-parse', 'HEAD');
  assert.is(gitAs(home, repo, ['commit', '-q', '--amend', '--allow-empty', '-m', 'second, amended'], {}, false).status, 0);
  const now = git(repo, 'rev-parse', 'HEAD');
  // An amend is a commit too: git runs post-commit, then post-rewrite.
  assert.is(read(userLog), `user post-commit\nuser post-commit\nuser post-rewrite amend ${old} ${now}\n`);
  assert.is(gitEntries(home).at(-1)!.said, `amend\n${old} ${now}\n`, 'tracer got the same input as the chained hook');

  const direct = spawnSync(join(hooks, 'post-commit'), [], { cwd: repo, env: { ...cleanEnv(), TRACER_HOME: home } });
  assert.is(direct.status, 3, "the user's hook's exit status is what git sees");

  assertOk(await run(['init', '--agents', 'none']));
  assert.not.ok(existsSync(join(hooks, 'post-commit.pre-tracer.pre-tracer')), 'a second init never chains tracer to itself');

  const removed = await run(['init', '--uninstall', '--agents', 'none']);
  assertOk(removed);
  assert.match(removed.stdout, /post-commit\s+restored/);
  assert.is(read(join(hooks, 'post-commit')), userCommit);
  assert.is(mode(join(hooks, 'post-commit')), 0o755);
  assert.is(read(join(hooks, 'post-rewrite')), userRewrite);
  assert.is(mode(join(hooks, 'post-rewrite')), 0o750);
  assert.not.ok(existsSync(join(hooks, 'post-commit.pre-tracer')));
});

test('a hook tracer cannot chain (its saved name is taken) stops init before anything is written', async () => {
  const { repo, run } = sandbox();
  const hooks = join(repo, '.git/hooks');
  writeFileSync(join(hooks, 'post-rewrite'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  writeFileSync(join(hooks, 'post-rewrite.pre-tracer'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
  assertOneLineError(await run(['init']), 'git_hook_conflict', 3);
  assert.not.ok(existsSync(join(hooks, 'post-commit')));
  assert.not.ok(existsSync(join(repo, '.claude')));
  assert.is(read(join(hooks, 'post-rewrite')), '#!/bin/sh\nexit 0\n');
});

test('core.hooksPath is honoured, relative to the top of the working tree even from a subfolder', async () => {
  const { home, repo, run } = sandbox();
  git(repo, 'config', 'core.hooksPath', '.githooks');
  const sub = join(repo, 'src', 'deep');
  mkdirSync(sub, { recursive: true });
  assertOk(await run(['init', '--agents', 'none'], { cwd: sub }));
  assert.ok(existsSync(join(repo, '.githooks/post-commit')));
  assert.is(mode(join(repo, '.githooks/post-rewrite')), 0o755);
  assert.not.ok(existsSync(join(repo, '.git/hooks/post-commit')));
  const log = useFakeTracer(join(repo, '.githooks/post-commit'), 'log');
  assert.is(gitAs(home, repo, ['commit', '-q', '--allow-empty', '-m', 'via hooksPath'], {}, false).status, 0);
  assert.equal(
    gitEntries(home).map((entry) => entry.event),
    ['post-commit'],
  );
  assert.is((await callsWhen(log, 1)).length, 1);

  assertOk(await run(['init', '--uninstall', '--agents', 'none']));
  assert.not.ok(existsSync(join(repo, '.githooks/post-commit')));
});

test('from a linked worktree the hooks go to the common git dir, where commits in every worktree run them', async () => {
  const { home, repo, run } = sandbox();
  const worktree = join(tempDir('tracer-wt-'), 'wt');
  git(repo, 'worktree', 'add', '-q', worktree);
  assertOk(await run(['init', '--agents', 'none'], { cwd: worktree }));
  assert.ok(existsSync(join(repo, '.git/hooks/post-commit')));
  assert.not.ok(existsSync(join(repo, '.git/worktrees/wt/hooks')));
  const log = useFakeTracer(join(repo, '.git/hooks/post-commit'), 'log');
  assert.is(gitAs(home, worktree, ['commit', '-q', '--allow-empty', '-m', 'in the worktree'], {}, false).status, 0);
  assert.is(gitAs(home, repo, ['commit', '-q', '--allow-empty', '-m', 'in the main tree'], {}, false).status, 0);
  assert.equal(
    gitEntries(home).map((entry) => entry.cwd),
    [worktree, repo],
  );
  assert.is((await callsWhen(log, 2)).length, 2);
});

test('--notes adds the notes fetch refspec once (to every remote or the named one); uninstall removes only it', async () => {
  const { repo, run } = sandbox();
  const upstream = tempDir('tracer-upstream-');
  git(upstream, 'init', '-q', '--bare', '-b', 'main');
  git(repo, 'remote', 'add', 'origin', upstream);
  git(repo, 'remote', 'add', 'backup', upstream);
  const fetchSpecs = (remote: string) => git(repo, 'config', '--get-all', `remote.${remote}.fetch`).split('\n');

  assertOk(await run(['init', '--agents', 'none', '--notes=origin']));
  assert.equal(fetchSpecs('origin'), ['+refs/heads/*:refs/remotes/origin/*', '+refs/notes/tracer:refs/notes/tracer']);
  assert.equal(fetchSpecs('backup'), ['+refs/heads/*:refs/remotes/backup/*']);
  assertOk(await run(['init', '--agents', 'none', '--notes']));
  assertOk(await run(['init', '--agents', 'none', '--notes']));
  assert.equal(fetchSpecs('origin'), ['+refs/heads/*:refs/remotes/origin/*', '+refs/notes/tracer:refs/notes/tracer']);
  assert.equal(fetchSpecs('backup'), ['+refs/heads/*:refs/remotes/backup/*', '+refs/notes/tracer:refs/notes/tracer']);
  assertOneLineError(await run(['init', '--agents', 'none', '--notes=nowhere']), 'git_remote_not_found', 2);

  git(repo, 'notes', '--ref=tracer', 'add', '-m', '{"ledger":1}', 'HEAD');
  git(repo, 'push', '-q', 'origin', 'main', 'refs/notes/tracer');
  const clone = join(tempDir('tracer-clone-'), 'c');
  git(upstream, 'clone', '-q', upstream, clone);
  git(clone, 'config', '--add', 'remote.origin.fetch', '+refs/notes/tracer:refs/notes/tracer');
  git(clone, 'fetch', '-q');
  assert.is(
    git(clone, 'notes', '--ref=tracer', 'show', 'HEAD'),
    '{"ledger":1}',
    'the refspec init adds is the one that brings notes to a clone',
  );

  assertOk(await run(['init', '--uninstall', '--agents', 'none']));
  assert.equal(fetchSpecs('origin'), ['+refs/heads/*:refs/remotes/origin/*']);
  assert.equal(fetchSpecs('backup'), ['+refs/heads/*:refs/remotes/backup/*']);
});

test.run();
