import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, runTracer } from '../helpers/cli.js';
import { gitIn, ledgerOf, linesByType, note } from '../capture/ledger-helpers.js';
import { pullRequestRepo, squashOnService } from './reconcile-fixture.js';

test.after(cleanup);

async function initIn(m: { repo: string; home: string }): Promise<void> {
  const init = await runTracer(['init', '--agents', 'none'], { cwd: m.repo, home: m.home });
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

test.run();
