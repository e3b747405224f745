import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, runMain } from '../helpers/cli.js';
import { gitIn, ledgerOf, linesByType, note, rows } from '../capture/ledger-helpers.js';
import { lockReconcile, RECONCILE_PENDING } from '../../src/attribution/reconcile/lock.js';
import { reconcile } from '../../src/attribution/reconcile/reconcile.js';
import { rejectionOf } from '../helpers/errors.js';
import { pullRequestRepo, rebaseOnService, squashOnService, teammate } from './reconcile-fixture.js';

test.after(cleanup);

async function initIn(m: { repo: string; home: string }): Promise<void> {
  const init = await runMain(['init', '--agents', 'none'], { cwd: m.repo, home: m.home });
  assert.is(init.code, 0, init.stderr);
}

test('tracer init installs post-merge: git pull of a squash merge writes its ledger and note, silently', async () => {
  const pr = await pullRequestRepo();
  await initIn(pr.a);
  const hook = readFileSync(join(pr.a.repo, '.git/hooks/post-merge'), 'utf8');
  assert.match(hook, /reconcile --post-merge <\/dev\/null >\/dev\/null 2>&1/);
  const squash = squashOnService(pr.origin, 'feature', 'Parse and total (#7)');
  const pulled = gitIn(pr.a.repo, ['pull', '--no-rebase', 'origin', 'main'], { home: pr.a.home });
  assert.not.match(pulled, /tracer/i, 'the pull prints nothing of tracer');
  const ledger = ledgerOf(pr.a, squash);
  assert.ok(ledger, 'the hook reconciled the squash');
  assert.equal(linesByType(ledger.record.files.find((file: any) => file.path === 'src/parse.ts')), { ai: [1, 2, 4, 5], human: [3] });
  assert.is(note(pr.a.repo, squash), `${JSON.stringify(ledger.record)}\n`);
  assert.not.ok(existsSync(join(pr.a.dir, 'hook-errors.log')), 'nothing failed');
});

test('the post-merge hook never fails a pull: a broken ledger file is logged, the pull succeeds', async () => {
  const pr = await pullRequestRepo();
  await initIn(pr.a);
  squashOnService(pr.origin, 'feature', 'Parse and total (#7)');
  // A folder where ledgers.jsonl should be: every read of it fails.
  renameSync(join(pr.a.dir, 'ledgers.jsonl'), join(pr.a.dir, 'ledgers.saved'));
  mkdirSync(join(pr.a.dir, 'ledgers.jsonl'));
  const before = gitIn(pr.a.repo, ['rev-parse', 'HEAD']);
  gitIn(pr.a.repo, ['pull', '-q', '--no-rebase', 'origin', 'main'], { home: pr.a.home });
  assert.is.not(gitIn(pr.a.repo, ['rev-parse', 'HEAD']), before, 'the pull went through');
  const log = readFileSync(join(pr.a.dir, 'hook-errors.log'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.equal(
    log.map((entry) => [entry.agent, entry.event]),
    [['git', 'post-merge']],
  );
});

test('git pull never waits for a fetch: the hook hands the squash to a run in the background, and a blame the next moment waits for it', async () => {
  const pr = await pullRequestRepo();
  // B cloned main before the request was merged, and the service deleted the branch on merge: only refs/pull/7/head has its commits.
  gitIn(pr.origin, ['branch', '-D', 'feature']);
  const b = teammate(pr.origin, pr.a);
  await initIn(b);
  gitIn(pr.origin, ['branch', 'feature', 'refs/pull/7/head']);
  const squash = squashOnService(pr.origin, 'feature', 'Parse and total (#7)');
  gitIn(pr.origin, ['branch', '-D', 'feature']);
  gitIn(b.repo, ['pull', '-q', '--no-rebase', 'origin', 'main'], { home: b.home });
  const blamed = await runMain(['blame', 'src/parse.ts', '--json'], { cwd: b.repo, home: b.home });
  assert.is(blamed.code, 0, blamed.stderr);
  assert.equal(
    JSON.parse(blamed.stdout).lines.map((line: any) => line.type),
    ['ai', 'ai', 'human', 'ai', 'ai'],
    'blame shows what the background run wrote, not what it found alone',
  );
  assert.is(
    rows(b, 'ledgers.jsonl').filter((row) => row.commit === squash).length,
    1,
    'one ledger row, though two processes could write it',
  );
  assert.is(note(b.repo, squash), `${JSON.stringify(ledgerOf(b, squash).record)}\n`);
  await until(() => !existsSync(join(b.dir, RECONCILE_PENDING)), 'the background run removes its hand-over when done');
  assert.not.ok(existsSync(join(b.dir, 'hook-errors.log')), 'nothing failed');
});

test('the hook is bounded: past its commit count the rest is deferred, in order; while another reconcile runs, all of it', async () => {
  const pr = await pullRequestRepo();
  const landed = rebaseOnService(pr.origin, 'feature');
  gitIn(pr.a.repo, ['pull', '-q', '--no-rebase', '--no-verify', 'origin', 'main']);
  const git = { cwd: pr.a.repo, env: { ...process.env, TRACER_HOME: pr.a.home } };
  const request = { projectDir: pr.a.dir, git, revisions: ['ORIG_HEAD..HEAD'], depth: 'full' as const, dryRun: true };

  const bounded = await reconcile({ ...request, bounded: { maxCommits: 1 } });
  assert.equal(
    bounded.reconciled.map((done) => done.commit),
    [landed[0]],
  );
  assert.equal(bounded.deferred, landed.slice(1));

  const release = await lockReconcile(pr.a.dir, 0);
  assert.ok(release, 'the lock is free');
  try {
    const held = await reconcile({ ...request, bounded: { maxCommits: 20 } });
    assert.equal(held.reconciled, []);
    assert.equal(held.deferred, landed);
    const busy = await rejectionOf(reconcile({ ...request, waitMs: 100 }));
    assert.is(busy.code, 'reconcile_busy');
    // A reconcile started now waits for the holder, then does the work.
    const waiting = reconcile({ ...request, waitMs: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await release!();
    assert.equal(
      (await waiting).reconciled.map((done) => done.commit),
      landed,
    );
  } finally {
    await release!().catch(() => undefined);
  }
});

test('blame waits for the reconcile another process holds, says so once on stderr, then reconciles what it reads', async () => {
  const pr = await pullRequestRepo();
  const landed = rebaseOnService(pr.origin, 'feature');
  gitIn(pr.a.repo, ['pull', '-q', '--no-rebase', 'origin', 'main']);
  const release = await lockReconcile(pr.a.dir, 0);
  assert.ok(release, 'the lock is free');
  let released = false;
  try {
    const blamed = runMain(['blame', 'src/parse.ts', '--json'], { cwd: pr.a.repo, home: pr.a.home });
    // The notice comes once the wait has lasted a second (src/store/file-lock.ts).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.not.ok(
      landed.some((commit) => ledgerOf(pr.a, commit)),
      'nothing reconciled while the lock is held',
    );
    released = true;
    await release!();
    const result = await blamed;
    assert.is(result.code, 0, result.stderr);
    assert.is(result.stderr, `tracer: waiting for the background reconcile, pid ${process.pid}\n`);
    const shown = new Set(JSON.parse(result.stdout).lines.map((line: any) => line.commit));
    const reconciled = landed.filter((commit) => shown.has(commit));
    assert.ok(reconciled.length > 0, 'blame shows landed commits');
    for (const commit of reconciled) assert.ok(ledgerOf(pr.a, commit), `${commit} got its ledger once the lock was free`);
  } finally {
    if (!released) await release!().catch(() => undefined);
  }
});

async function until(done: () => boolean, what: string): Promise<void> {
  for (let tries = 0; tries < 200 && !done(); tries += 1) await new Promise((resolve) => setTimeout(resolve, 25));
  assert.ok(done(), what);
}

test.run();
