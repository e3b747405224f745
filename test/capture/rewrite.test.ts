import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, runMain } from '../helpers/cli.js';
import {
  commitAll,
  commitLink,
  gitIn,
  ledgerOf,
  linesByType,
  machine,
  note,
  rows,
  seedTraces,
  traceRow,
  writeFile,
  type Machine,
} from './ledger-helpers.js';

test.after(cleanup);

const rewrite = (m: Machine, kind: string, pairs: string, args: string[] = []) =>
  runMain(['rewrite-ledger', kind, ...args], { cwd: m.repo, home: m.home, input: pairs });
const state = (m: Machine) => JSON.parse(readFileSync(join(m.dir, 'attribution-state.json'), 'utf8'));

test('amend: the new commit gets its own ledger from its own diff, the link records rewritten_from, the note follows', async () => {
  const m = machine();
  const trace = traceRow({ conversation: 's-amend', files: { 'a.ts': ['const a = 1;', 'const b = 2;'] } });
  seedTraces(m, [trace]);
  writeFile(m.repo, 'a.ts', ['const a = 1;', 'const b = 2;']);
  const old = commitAll(m.repo, 'a');
  assert.is((await commitLink(m)).code, 0);

  writeFile(m.repo, 'a.ts', ['const a = 1;', 'const b = 2;', 'const c = 3; // by hand']);
  gitIn(m.repo, ['add', '-A']);
  gitIn(m.repo, ['commit', '-q', '--amend', '--no-edit']);
  const amended = gitIn(m.repo, ['rev-parse', 'HEAD']);
  const result = await rewrite(m, 'amend', `${old} ${amended}\n`);
  assert.equal([result.code, result.stdout, result.stderr], [0, '', '']);

  const ledger = ledgerOf(m, amended);
  assert.equal(linesByType(ledger.record.files[0]), { ai: [1, 2], human: [3] }, 'the trace the old ledger used still counts');
  assert.equal(ledger.trace_ids, [trace.id]);
  const link = rows(m, 'commit-links.jsonl').find((row) => row.commit === amended);
  assert.equal([link.rewritten_from, link.session_ids, link.ledger_sha], [old, ['s-amend'], ledger.sha]);
  assert.is(note(m.repo, amended), `${JSON.stringify(ledger.record)}\n`);
  assert.equal(Object.keys(state(m).commits), [amended], "the old commit's claims went to the new one");
  assert.ok(ledgerOf(m, old), 'the old ledger stays: the files are append-only');
});

test('rebase onto a moved base: each rebased commit keeps its attribution and nothing is attributed twice', async () => {
  const m = machine();
  writeFile(m.repo, 'base.txt', ['base']);
  commitAll(m.repo, 'base');
  gitIn(m.repo, ['checkout', '-q', '-b', 'topic']);
  const trace = traceRow({ files: { 't.ts': ['shared line', 'first agent line', 'shared line', 'second agent line'] } });
  seedTraces(m, [trace]);
  writeFile(m.repo, 't.ts', ['shared line', 'first agent line']);
  const old1 = commitAll(m.repo, 't1');
  assert.is((await commitLink(m)).code, 0);
  writeFile(m.repo, 't.ts', ['shared line', 'first agent line', 'shared line', 'second agent line', 'shared line']);
  const old2 = commitAll(m.repo, 't2');
  assert.is((await commitLink(m)).code, 0);
  const before = [ledgerOf(m, old1), ledgerOf(m, old2)].map((ledger) => linesByType(ledger.record.files[0]));
  assert.equal(before, [{ ai: [1, 2] }, { ai: [3, 4], human: [5] }], 'the third "shared line" had no unclaimed copy left');

  gitIn(m.repo, ['checkout', '-q', 'main']);
  writeFile(m.repo, 'main.txt', ['moved base']);
  commitAll(m.repo, 'main moves');
  gitIn(m.repo, ['checkout', '-q', 'topic']);
  gitIn(m.repo, ['rebase', '-q', 'main']);
  const new2 = gitIn(m.repo, ['rev-parse', 'HEAD']);
  const new1 = gitIn(m.repo, ['rev-parse', 'HEAD~1']);
  const result = await rewrite(m, 'rebase', `${old1} ${new1}\n${old2} ${new2}\n`, ['--verbose']);
  assert.is(result.code, 0, result.stderr);
  assert.is(result.stdout.trim().split('\n').length, 2);

  const after = [ledgerOf(m, new1), ledgerOf(m, new2)].map((ledger) => linesByType(ledger.record.files[0]));
  assert.equal(after, before);
  for (const [from, to] of [
    [old1, new1],
    [old2, new2],
  ] as const) {
    assert.ok(rows(m, 'commit-links.jsonl').some((link) => link.commit === to && link.rewritten_from === from));
    assert.ok(note(m.repo, to));
  }
  const remembered = Object.keys(state(m).commits);
  assert.ok(remembered.includes(new1) && remembered.includes(new2));
  assert.ok(!remembered.includes(old1) && !remembered.includes(old2), 'the old commits released their claims');
});

test("a rewrite keeps the old ledger's traces even when the window has moved past them", async () => {
  const m = machine();
  const trace = traceRow({ ts: '2025-01-01T00:00:00.000Z', files: { 'w.ts': ['old agent line'] } });
  seedTraces(m, [trace]);
  writeFile(m.repo, 'w.ts', ['old agent line']);
  const old = commitAll(m.repo, 'w');
  assert.is((await commitLink(m)).code, 0);
  const moved = state(m);
  moved.window_start = '2025-02-01T00:00:00.000Z';
  writeFileSync(join(m.dir, 'attribution-state.json'), JSON.stringify(moved));

  gitIn(m.repo, ['commit', '-q', '--amend', '-m', 'w, reworded']);
  const amended = gitIn(m.repo, ['rev-parse', 'HEAD']);
  assert.is((await commitLink(m, ['--commit', amended])).code, 0);
  assert.equal(linesByType(ledgerOf(m, amended).record.files[0]), { human: [1] }, 'outside the window, on its own');
  assert.is((await rewrite(m, 'amend', `${old} ${amended}\n`)).code, 0);
  assert.equal(linesByType(ledgerOf(m, amended).record.files[0]), { ai: [1] }, "with the old ledger's traces");
});

test('bad input never fails git: logged and exit 0; with --verbose the error and its exit code', async () => {
  const m = machine();
  writeFile(m.repo, 'x.txt', ['x']);
  const commit = commitAll(m.repo, 'x');
  assert.equal(await rewrite(m, 'squash', `${commit} ${commit}\n`), { code: 0, stdout: '', stderr: '' });
  assert.equal(await rewrite(m, 'amend', 'not a pair\n'), { code: 0, stdout: '', stderr: '' });
  const log = readFileSync(join(m.dir, 'hook-errors.log'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.equal(
    log.map((entry) => [entry.event, entry.code]),
    [
      ['post-rewrite', 'invalid_rewrite_kind'],
      ['post-rewrite', 'invalid_rewrite_input'],
    ],
  );
  const loud = await rewrite(m, 'amend', 'not a pair\n', ['--verbose']);
  assert.is(loud.code, 2);
  assert.match(loud.stderr, /\(invalid_rewrite_input\)\n$/);
  assert.equal(rows(m, 'ledgers.jsonl'), []);
});

test.run();
