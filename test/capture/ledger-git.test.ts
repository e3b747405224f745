import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, runMain, tempDir } from '../helpers/cli.js';
import { assertAgentTraceRecord } from './agent-trace-schema.js';
import {
  commitAll,
  commitLink,
  gitIn,
  fileKind,
  ledgerOf,
  linesByType,
  machine,
  note,
  rawLines,
  rows,
  seedTraces,
  traceRow,
  writeFile,
} from './ledger-helpers.js';

test.after(cleanup);

test('a merge is read against its first parent; lines the merged branch brought are not re-attributed', async () => {
  const m = machine();
  writeFile(m.repo, 'base.txt', ['base']);
  commitAll(m.repo, 'base');
  gitIn(m.repo, ['checkout', '-q', '-b', 'feature']);
  seedTraces(m, [traceRow({ files: { 'feature.ts': ['feature code'] } })]);
  writeFile(m.repo, 'feature.ts', ['feature code']);
  const feature = commitAll(m.repo, 'feature');
  assert.is((await commitLink(m)).code, 0);
  gitIn(m.repo, ['checkout', '-q', 'main']);
  writeFile(m.repo, 'main.txt', ['main work']);
  const mainTip = commitAll(m.repo, 'main work');
  gitIn(m.repo, ['merge', '-q', '--no-ff', '--no-commit', 'feature']);
  writeFile(m.repo, 'merge-fix.txt', ['resolved by hand']);
  const merge = commitAll(m.repo, 'merge');
  assert.is((await commitLink(m)).code, 0);

  assert.is(fileKind(ledgerOf(m, feature).record.files[0]), 'ai');
  const ledger = ledgerOf(m, merge);
  assert.equal(ledger.record.metadata['dev.tracer'].parents, [mainTip, feature]);
  assert.equal(
    ledger.record.files.map((file: any) => [file.path, fileKind(file)]),
    [['merge-fix.txt', 'human']],
    "feature.ts is the feature commit's, not the merge's",
  );
  assert.equal(ledger.trace_ids, []);
});

test('a merge of a branch whose commits were never attributed credits the agent in the merge', async () => {
  const m = machine();
  writeFile(m.repo, 'base.txt', ['base']);
  commitAll(m.repo, 'base');
  gitIn(m.repo, ['checkout', '-q', '-b', 'side']);
  const trace = traceRow({ files: { 'side.ts': ['side one', 'side two'] } });
  seedTraces(m, [trace]);
  writeFile(m.repo, 'side.ts', ['side one', 'side two', 'side by hand']);
  commitAll(m.repo, 'side, not linked');
  gitIn(m.repo, ['checkout', '-q', 'main']);
  writeFile(m.repo, 'main.txt', ['main']);
  commitAll(m.repo, 'main');
  gitIn(m.repo, ['merge', '-q', '--no-ff', '--no-edit', 'side']);
  const merge = gitIn(m.repo, ['rev-parse', 'HEAD']);
  assert.is((await commitLink(m)).code, 0);
  const [file] = ledgerOf(m, merge).record.files;
  assert.is(file.path, 'side.ts');
  assert.equal(linesByType(file), { ai: [1, 2] }, 'carried lines no trace wrote are left to the branch that added them');
});

test('ledgers are git notes under refs/notes/tracer, and a clone that adds the refspec fetches them', async () => {
  const m = machine();
  seedTraces(m, [traceRow({ files: { 'n.txt': ['noted'] } })]);
  writeFile(m.repo, 'n.txt', ['noted']);
  const commit = commitAll(m.repo, 'n');
  assert.is((await commitLink(m)).code, 0);
  const [row] = rawLines(m, 'ledgers.jsonl');
  const record = JSON.stringify(ledgerOf(m, commit).record);
  assert.ok(row!.includes(record));
  assert.is(note(m.repo, commit), `${record}\n`, 'the note is the ledger record, byte for byte');
  assertAgentTraceRecord(JSON.parse(note(m.repo, commit)!), 'the git note');

  const clone = join(tempDir('tracer-clone-'), 'clone');
  gitIn(m.repo, ['clone', '-q', m.repo, clone]);
  assert.is(note(clone, commit), undefined, 'plain clones do not fetch notes');
  gitIn(clone, ['config', '--add', 'remote.origin.fetch', '+refs/notes/tracer:refs/notes/tracer']);
  gitIn(clone, ['fetch', '-q', 'origin']);
  assert.is(note(clone, commit), `${record}\n`);
});

test('notes are written even where git has no identity configured', async () => {
  const m = machine();
  writeFile(m.repo, 'i.txt', ['x']);
  const commit = commitAll(m.repo, 'i');
  const emptyHome = tempDir('tracer-nohome-');
  const result = await runMain(['commit-link', '--verbose'], {
    cwd: m.repo,
    home: m.home,
    env: { HOME: emptyHome, XDG_CONFIG_HOME: emptyHome, GIT_CONFIG_NOSYSTEM: '1', EMAIL: undefined },
  });
  assert.is(result.code, 0, result.stderr);
  assert.ok(note(m.repo, commit));
});

test("a linked worktree records into the same project, and its notes are the repository's", async () => {
  const m = machine();
  writeFile(m.repo, 'base.txt', ['base']);
  commitAll(m.repo, 'base');
  const worktree = join(tempDir('tracer-wt-'), 'wt');
  gitIn(m.repo, ['worktree', 'add', '-q', '-b', 'wt-branch', worktree]);
  seedTraces(m, [traceRow({ files: { 'wt.txt': ['from the worktree'] } })]);
  writeFile(worktree, 'wt.txt', ['from the worktree']);
  const commit = commitAll(worktree, 'in worktree');
  assert.is((await commitLink(m, [], worktree)).code, 0);
  assert.is(fileKind(ledgerOf(m, commit).record.files[0]), 'ai');
  assert.ok(note(m.repo, commit), 'the note is visible from the main worktree');
});

test('through the hooks tracer init installs: commit, amend and rebase keep ledgers, links and notes in step', async () => {
  const m = machine();
  writeFile(m.repo, 'base.txt', ['base']);
  commitAll(m.repo, 'base');
  const init = await runMain(['init', '--agents', 'none'], { cwd: m.repo, home: m.home });
  assert.is(init.code, 0, init.stderr);

  seedTraces(m, [traceRow({ files: { 'h.ts': ['hooked line'] } })]);
  writeFile(m.repo, 'h.ts', ['hooked line']);
  const first = commitAll(m.repo, 'through hook', { home: m.home });
  assert.is(fileKind(ledgerOf(m, first)?.record.files[0]), 'ai', 'post-commit ran commit-link');
  assert.ok(note(m.repo, first));

  writeFile(m.repo, 'h.ts', ['hooked line', 'added while amending']);
  gitIn(m.repo, ['add', '-A'], { home: m.home });
  gitIn(m.repo, ['commit', '-q', '--amend', '--no-edit'], { home: m.home });
  const amended = gitIn(m.repo, ['rev-parse', 'HEAD']);
  assert.equal(linesByType(ledgerOf(m, amended).record.files[0]), { ai: [1], human: [2] });
  const links = rows(m, 'commit-links.jsonl').filter((link) => link.commit === amended);
  assert.ok(
    links.some((link) => link.rewritten_from === first),
    'post-rewrite linked the amended commit to the old one',
  );
  assert.ok(note(m.repo, amended));

  gitIn(m.repo, ['checkout', '-q', '-b', 'moved', 'HEAD~1']);
  writeFile(m.repo, 'elsewhere.txt', ['moved base']);
  commitAll(m.repo, 'move the base', { home: m.home });
  gitIn(m.repo, ['checkout', '-q', 'main']);
  gitIn(m.repo, ['rebase', '-q', 'moved'], { home: m.home });
  const rebased = gitIn(m.repo, ['rev-parse', 'HEAD']);
  assert.equal(linesByType(ledgerOf(m, rebased).record.files[0]), { ai: [1], human: [2] }, 'the rebased commit keeps its attribution');
  assert.ok(rows(m, 'commit-links.jsonl').some((link) => link.commit === rebased && link.rewritten_from === amended));
  assert.ok(note(m.repo, rebased));
  const log = rawLines(m, 'hook-errors.log');
  assert.equal(log, [], 'no hook failures');
});

test.run();
