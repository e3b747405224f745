import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup, runMain } from '../helpers/cli.js';
import { ledgerOf, note } from '../capture/ledger-helpers.js';
import { goneBranchSquash } from './reconcile-fixture.js';
import { isTrivialLine } from '../../src/attribution/reconcile/recover.js';

test.after(cleanup);

test('branch gone, ledgers pulled: the squash gets the agent range back by content hash, marked recovered; the rest is unknown', async () => {
  const { b, squash } = await goneBranchSquash();
  const result = await runMain(['reconcile', '--json'], { cwd: b.repo, home: b.home });
  assert.is(result.code, 0, result.stderr);
  const done = JSON.parse(result.stdout).reconciled;
  assert.equal(
    done.map((entry: any) => [entry.commit, entry.method, entry.lines]),
    [[squash, 'content-hash', { ai: 5, human: 0, mixed: 0, unknown: 4 }]],
  );
  const ledger = ledgerOf(b, squash);
  assert.equal(ledger.record.metadata['dev.tracer'].recovered, { 'src/sort.ts': [[1, 5]] });
  assert.is(note(b.repo, squash), `${JSON.stringify(ledger.record)}\n`);
  // Recorded as a commit of this clone: B has none of the traces, so its ledger claims none of their lines.
  const state = JSON.parse(readFileSync(join(b.dir, 'attribution-state.json'), 'utf8'));
  assert.equal(state.commits[squash], { ts: ledger.ts, ledger_sha: ledger.sha, claims: {} });
  assert.is(state.last_commit, squash);

  const blame = await runMain(['blame', 'src/sort.ts', '--json'], { cwd: b.repo, home: b.home });
  const lines = JSON.parse(blame.stdout).lines;
  assert.equal(
    lines.map((line: any) => [line.type, line.model_id, line.recovered]),
    Array(5).fill(['ai', 'anthropic/claude-sonnet-4-5', true]),
  );
  const text = await runMain(['blame', 'src/sort.ts'], { cwd: b.repo, home: b.home });
  assert.match(text.stdout, /AI \(\(recovered\) claude-code anthropic\//);
  const braces = await runMain(['blame', 'src/braces.ts', '--json'], { cwd: b.repo, home: b.home });
  assert.equal(
    JSON.parse(braces.stdout).lines.map((line: any) => line.type),
    ['unknown', 'unknown', 'unknown'],
    'braces alone never match',
  );

  const show = await runMain(['show', squash, '--json'], { cwd: b.repo, home: b.home });
  assert.is(show.code, 0, show.stderr);
  assert.equal(JSON.parse(show.stdout).recovered, { lines: 5, files: [{ path: 'src/sort.ts', ranges: [[1, 5]] }] });
  const shown = await runMain(['show', squash], { cwd: b.repo, home: b.home });
  assert.match(
    shown.stdout,
    /\nRecovered: 5 agent lines re-attached by content hash \(the branch's commits were gone\): src\/sort\.ts 1-5\n/,
  );
  const base = await runMain(['show', `${squash}^`, '--json'], { cwd: b.repo, home: b.home });
  assert.is(JSON.parse(base.stdout).recovered, null, 'a commit with nothing recovered says null');
  assert.not.match((await runMain(['show', `${squash}^`], { cwd: b.repo, home: b.home })).stdout, /Recovered/);
});

test('trivial lines: braces, blank lines, pass and friends', () => {
  for (const line of ['}', '  });', '', '   ', 'pass', '  end', 'else:', ']', '*/']) assert.ok(isTrivialLine(line), line);
  for (const line of ['return copy;', 'x = 1', 'def f():']) assert.not.ok(isTrivialLine(line), line);
});

test.run();
