// Issue 34: background work never hides data and never stalls a command. A
// fold SIGKILLed while it holds the spool's lock costs the next command no
// wait and no event; a live fold is waited for, by name; a command that still
// cannot fold says so (spool_not_folded, on stderr and in --json); and a
// commit's ledger is never made without the agent events spooled before it.
import { spawn, spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN, cleanEnv, cleanup, gitWith } from '../helpers/cli.js';
import {
  foldLock,
  initialized,
  killed,
  ledgers,
  lockHolder,
  locksLeft,
  spooled,
  spoolPrompt,
  spoolWrite,
  traces,
} from './support/spool-kit.js';

test.after.each(cleanup);

test('status right after a fold SIGKILLed while holding the lock: no wait, every event spooled before it, in order, once', async () => {
  const box = await initialized();
  const sessions = Array.from({ length: 20 }, (_, index) => `dead-${index}`);
  for (const session of sessions) spoolPrompt(box, session);
  const holder = await lockHolder(foldLock(box.home));
  await killed(holder);
  const status = await box.run(['status']);
  assert.is(status.code, 0, status.stderr);
  assert.not.match(status.stderr, /waiting for/, 'a dead holder is not waited for');
  assert.not.match(status.stderr, /spool_not_folded/);
  assert.equal(
    traces(box.home).map((row) => row.conversation_id),
    sessions,
  );
  assert.equal(spooled(box.home), []);
  assert.equal(locksLeft(box.home), []);
});

test('a live fold is waited for and named after a second; killed meanwhile, the command takes over and shows everything', async () => {
  const box = await initialized();
  for (const session of ['w-0', 'w-1', 'w-2']) spoolPrompt(box, session);
  const holder = await lockHolder(foldLock(box.home));
  const status = spawn(process.execPath, [BIN, 'status'], {
    cwd: box.repo,
    env: { ...cleanEnv(), TRACER_HOME: box.home, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => status.once('exit', resolve));
  await new Promise<void>((resolve) =>
    status.stderr.on('data', (chunk) => {
      stderr += chunk;
      if (stderr.includes('waiting for')) resolve();
    }),
  );
  assert.match(stderr, new RegExp(`^tracer: waiting for the background fold, pid ${holder.pid}\\n`));
  await killed(holder);
  assert.is(await exited, 0, stderr);
  assert.not.match(stderr, /spool_not_folded/);
  assert.equal(
    traces(box.home).map((row) => row.conversation_id),
    ['w-0', 'w-1', 'w-2'],
  );
});

test('a fold that stays busy past the wait: spool_not_folded on stderr and in --json, and the next command shows it all', async () => {
  const box = await initialized();
  spoolPrompt(box, 'busy-0');
  const holder = await lockHolder(foldLock(box.home));
  try {
    const json = await box.run(['status', '--json'], { env: { TRACER_SPOOL_WAIT_MS: '100' } });
    assert.is(json.code, 0, json.stderr);
    assert.match(
      json.stderr,
      new RegExp(
        `^tracer: warning: 1 event spooled before this command started is not in what it shows: the fold of pid ${holder.pid} held the spool's lock for 0\\.1 s without folding them; run the command again\\. \\(spool_not_folded\\)\\n$`,
      ),
    );
    const report = JSON.parse(json.stdout);
    assert.is(report.warnings.at(-1).code, 'spool_not_folded');
    assert.equal(traces(box.home), []);
  } finally {
    await killed(holder);
  }
  const again = await box.run(['status']);
  assert.is(again.code, 0, again.stderr);
  assert.is(again.stderr, '');
  assert.equal(
    traces(box.home).map((row) => row.conversation_id),
    ['busy-0'],
  );
});

test("a commit made while the spool cannot be folded gets its ledger later, with the agent's edit spooled before it", async () => {
  const box = await initialized();
  gitWith({ TRACER_HOME: box.home }, box.repo, 'commit', '-q', '--allow-empty', '-m', 'start');
  spoolWrite(box, 'edit-session', 'src/app.ts', ['export const answer = 42;', 'export const question = "?";']);
  const holder = await lockHolder(foldLock(box.home));
  let commit: string;
  try {
    // As the hook runs it when it cannot spool (TRACER_HOOK_SYNC=1): tracer itself, which cannot fold first.
    // Not gitWith: it waits for the spool, which this holder keeps.
    const env = { TRACER_HOME: box.home, TRACER_HOOK_SYNC: '1', TRACER_SPOOL_WAIT_MS: '100' };
    assert.is(spawnGit(box.repo, env, ['add', '-A']).status, 0);
    const made = spawnGit(box.repo, env, ['commit', '-q', '-m', 'agent edit']);
    assert.is(made.status, 0, made.stderr);
    commit = spawnGit(box.repo, env, ['rev-parse', 'HEAD']).stdout.trim();
    assert.not.ok(
      ledgers(box.home).some((ledger) => ledger.commit === commit),
      'no ledger built without the edit',
    );
    assert.is(spooled(box.home).length, 2, 'the edit, then the commit, wait in the spool');
  } finally {
    await killed(holder);
  }
  const show = await box.run(['show', commit!, '--json']);
  assert.is(show.code, 0, show.stderr);
  const ledger = ledgers(box.home).find((row) => row.commit === commit);
  assert.ok(ledger, 'the fold made the ledger');
  assert.is(ledger!.record.metadata['dev.tracer'].lines.ai, 2, 'both lines are the agent edit');
  assert.equal(spooled(box.home), []);
});

function spawnGit(cwd: string, env: Record<string, string>, args: string[]) {
  return spawnSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...cleanEnv(),
      GIT_AUTHOR_NAME: 'Test',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 'Test',
      GIT_COMMITTER_EMAIL: 't@example.com',
      ...env,
    },
  });
}

test.run();
