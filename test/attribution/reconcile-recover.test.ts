import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, runTracer, tempDir } from '../helpers/cli.js';
import { commitAll, commitLink, gitIn, ledgerOf, machine, note, seedTraces, traceRow, writeFile } from '../capture/ledger-helpers.js';
import { squashOnService, teammate } from './reconcile-fixture.js';
import { isTrivialLine } from '../../src/attribution/reconcile/recover.js';

test.after(cleanup);

const SORT = [
  'export function sortBy<T>(items: T[], key: (item: T) => number): T[] {',
  '  const copy = [...items];',
  '  copy.sort((a, b) => key(a) - key(b));',
  '  return copy;',
  '}',
];
const BRACES = ['}', '', '}'];
const BY_HAND = ['# sorting', 'sortBy keeps the input untouched.'];

test('branch gone, ledgers pulled: the squash gets the agent range back by content hash, marked recovered; the rest is unknown', async () => {
  const a = machine();
  const origin = join(tempDir('tracer-origin-'), 'origin.git');
  gitIn(tempDir(), ['init', '-q', '--bare', '-b', 'main', origin]);
  writeFile(a.repo, 'README.md', ['# tools']);
  commitAll(a.repo, 'base');
  gitIn(a.repo, ['remote', 'add', 'origin', origin]);
  gitIn(a.repo, ['push', '-q', '-u', 'origin', 'main']);
  gitIn(a.repo, ['checkout', '-q', '-b', 'feature']);
  seedTraces(a, [traceRow({ conversation: 'session-sort', files: { 'src/sort.ts': SORT, 'src/braces.ts': BRACES } })]);
  writeFile(a.repo, 'src/sort.ts', SORT);
  writeFile(a.repo, 'src/braces.ts', BRACES);
  commitAll(a.repo, 'sortBy, by Claude Code');
  assert.is((await commitLink(a)).code, 0);
  writeFile(a.repo, 'docs/sort.md', BY_HAND);
  commitAll(a.repo, 'docs, by hand');
  assert.is((await commitLink(a)).code, 0);
  gitIn(a.repo, ['push', '-q', 'origin', 'feature']);

  const squash = squashOnService(origin, 'feature', 'Sorting (#12)');
  // The service deletes the branch and keeps no request ref: only the ledgers are left.
  gitIn(origin, ['branch', '-D', 'feature']);
  const b = teammate(origin, a);
  const result = await runTracer(['reconcile', '--json'], { cwd: b.repo, home: b.home });
  assert.is(result.code, 0, result.stderr);
  const done = JSON.parse(result.stdout).reconciled;
  assert.equal(
    done.map((entry: any) => [entry.commit, entry.method, entry.lines]),
    [[squash, 'content-hash', { ai: 5, human: 0, mixed: 0, unknown: 4 }]],
  );
  const ledger = ledgerOf(b, squash);
  assert.equal(ledger.record.metadata['dev.tracer'].recovered, { 'src/sort.ts': [[1, 5]] });
  assert.is(note(b.repo, squash), `${JSON.stringify(ledger.record)}\n`);

  const blame = await runTracer(['blame', 'src/sort.ts', '--json'], { cwd: b.repo, home: b.home });
  const lines = JSON.parse(blame.stdout).lines;
  assert.equal(
    lines.map((line: any) => [line.type, line.model_id, line.recovered]),
    Array(5).fill(['ai', 'anthropic/claude-sonnet-4-5', true]),
  );
  const text = await runTracer(['blame', 'src/sort.ts'], { cwd: b.repo, home: b.home });
  assert.match(text.stdout, /AI \(\(recovered\) claude-code anthropic\//);
  const braces = await runTracer(['blame', 'src/braces.ts', '--json'], { cwd: b.repo, home: b.home });
  assert.equal(
    JSON.parse(braces.stdout).lines.map((line: any) => line.type),
    ['unknown', 'unknown', 'unknown'],
    'braces alone never match',
  );
});

test('trivial lines: braces, blank lines, pass and friends', () => {
  for (const line of ['}', '  });', '', '   ', 'pass', '  end', 'else:', ']', '*/']) assert.ok(isTrivialLine(line), line);
  for (const line of ['return copy;', 'x = 1', 'def f():']) assert.not.ok(isTrivialLine(line), line);
});

test.run();
