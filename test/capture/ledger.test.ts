import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { contentId } from '../../src/core/content-id.js';
import { conversationTraceIds } from '../../src/capture/ledger/ledger-line.js';
import { cleanup, tempDir } from '../helpers/cli.js';
import {
  commitAll,
  commitLink,
  fileKind,
  gitIn,
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

const AGENT_LINES = ['export function add(a, b) {', '  return a + b;', '}'];

test('lines the agent wrote are ai, with the conversation url, model and trace; the link names the session', async () => {
  const m = machine();
  const trace = traceRow({ conversation: 'sess-a', model: 'claude-sonnet-4-5', files: { 'src/add.js': AGENT_LINES } });
  seedTraces(m, [trace]);
  writeFile(m.repo, 'src/add.js', AGENT_LINES);
  const commit = commitAll(m.repo, 'Add the adder\n\nWith a body that stays out of the link.');
  const result = await commitLink(m);
  assert.is(result.code, 0);
  assert.is(result.stdout, '', 'a hook prints nothing');
  assert.is(result.stderr, '');

  const ledger = ledgerOf(m, commit);
  assert.is(ledger.sha, contentId(ledger, 'sha'), 'sha is the content id');
  assert.equal(Object.keys(ledger).sort(), ['commit', 'record', 'sha', 'trace_ids', 'ts'], 'tracer members, then the record');
  assert.equal(ledger.record.vcs, { type: 'git', revision: commit });
  assert.is(ledger.record.version, '0.1.0');
  assert.equal(ledger.record.tool, { name: 'tracer', version: '1' }, 'a format version, never the package version');
  assert.is(ledger.commit, commit);
  assert.is(ledger.ts, gitIso(m.repo, commit), 'ts is the committer time, not the time tracer ran');
  assert.is(ledger.record.timestamp, ledger.ts);
  assert.equal(ledger.trace_ids, [trace.id]);
  assert.is(ledger.record.files.length, 1);
  const [file] = ledger.record.files;
  assert.is(file.path, 'src/add.js');
  assert.is(fileKind(file), 'ai');
  assert.equal(file.conversations, [
    {
      url: 'claude-code://session/sess-a',
      contributor: { type: 'ai', model_id: 'anthropic/claude-sonnet-4-5' },
      ranges: [{ start_line: 1, end_line: 3, content_hash: file.conversations[0].ranges[0].content_hash }],
      related: [{ type: 'trace', url: `tracer://trace/${trace.id}` }],
    },
  ]);
  assert.equal(conversationTraceIds(file.conversations[0]), [trace.id]);
  assert.is(note(m.repo, commit), `${JSON.stringify(ledger.record)}\n`, 'the git note is the record');
  assert.ok(rawLines(m, 'ledgers.jsonl')[0]!.includes(JSON.stringify(ledger.record)), 'byte for byte the record in the line');
  assert.match(file.conversations[0].ranges[0].content_hash, /^sha256:[0-9a-f]{64}$/);

  const [link] = rows(m, 'commit-links.jsonl');
  assert.is(link.id, contentId(link, 'id'));
  assert.equal(
    { commit: link.commit, ts: link.ts, session_ids: link.session_ids, trace_ids: link.trace_ids, ledger_sha: link.ledger_sha },
    {
      commit,
      ts: ledger.ts,
      session_ids: ['sess-a'],
      trace_ids: [trace.id],
      ledger_sha: ledger.sha,
    },
  );
  // The link names its commit (issue 32): the subject alone, the author's name, the committer time.
  const author = execFileSync('git', ['log', '-1', '--format=%an', commit], { cwd: m.repo, encoding: 'utf8' }).trim();
  assert.ok(author.length > 0);
  assert.equal(
    { subject: link.subject, author_name: link.author_name, committed_at: link.committed_at },
    { subject: 'Add the adder', author_name: author, committed_at: ledger.ts },
  );
  const state = JSON.parse(readFileSync(join(m.dir, 'attribution-state.json'), 'utf8'));
  assert.is(state.last_commit, commit);
  assert.is(state.last_commit_ts, ledger.ts);
});

test('lines no trace wrote are human; a file with both is mixed with per-range contributors, blank lines joining ranges', async () => {
  const m = machine();
  writeFile(m.repo, 'README.md', ['# notes', 'written by hand']);
  const agentPart = ['function a() {', '  return 1;', '}'];
  const trace = traceRow({ files: { 'lib.js': [...agentPart, '', 'function b() {}'] } });
  seedTraces(m, [trace]);
  writeFile(m.repo, 'lib.js', ['// header by hand', ...agentPart, '', 'function b() {}', 'const handwritten = true;']);
  const commit = commitAll(m.repo, 'mixed');
  assert.is((await commitLink(m)).code, 0);

  const ledger = ledgerOf(m, commit);
  assert.equal(
    ledger.record.files.map((file: any) => [file.path, fileKind(file)]),
    [
      ['README.md', 'human'],
      ['lib.js', 'mixed'],
    ],
  );
  const lib = ledger.record.files[1];
  assert.equal(linesByType(lib), { ai: [2, 3, 4, 5, 6], human: [1, 7] }, 'the blank line 5 sits inside the agent range');
  assert.equal(
    lib.conversations.map((c: any) => c.contributor.type),
    ['ai', 'human'],
    'agents first, the person last',
  );
  for (const conversation of lib.conversations) {
    for (const range of conversation.ranges) assert.is(range.contributor, undefined, "ranges take their conversation's contributor");
  }
  assert.equal(ledger.record.metadata['dev.tracer'].lines, { ai: 4, human: 4 });
  assert.is(ledger.record.files[0].conversations[0].url, undefined, 'a person has no conversation url');
});

test("a trace's line is not attributed twice: a later commit re-adding it gets a person", async () => {
  const m = machine();
  const trace = traceRow({ files: { 'a.txt': ['agent line'] } });
  seedTraces(m, [trace]);
  writeFile(m.repo, 'a.txt', ['agent line']);
  const first = commitAll(m.repo, 'one');
  assert.is((await commitLink(m)).code, 0);
  writeFile(m.repo, 'a.txt', ['agent line', 'agent line']);
  const second = commitAll(m.repo, 'two');
  assert.is((await commitLink(m)).code, 0);
  assert.is(fileKind(ledgerOf(m, first).record.files[0]), 'ai');
  assert.is(fileKind(ledgerOf(m, second).record.files[0]), 'human');
  assert.equal(ledgerOf(m, second).trace_ids, []);
});

test('an agent edit left out of one commit keeps its credit for the next', async () => {
  const m = machine();
  seedTraces(m, [traceRow({ files: { 'one.txt': ['first'], 'two.txt': ['second'] } })]);
  writeFile(m.repo, 'one.txt', ['first']);
  writeFile(m.repo, 'two.txt', ['second']);
  gitIn(m.repo, ['add', 'one.txt']);
  gitIn(m.repo, ['commit', '-q', '-m', 'only one']);
  assert.is((await commitLink(m)).code, 0);
  const next = commitAll(m.repo, 'the other');
  assert.is((await commitLink(m)).code, 0);
  assert.equal(
    ledgerOf(m, next).record.files.map((file: any) => [file.path, fileKind(file)]),
    [['two.txt', 'ai']],
  );
});

test('the newest trace that still holds a line gets it; an ended conversation without model has no model_id', async () => {
  const m = machine();
  const older = traceRow({ conversation: 'old', ts: '2025-03-01T08:00:00.000Z', files: { 'x.txt': ['same'] } });
  const newer = traceRow({ agent: 'codex', conversation: 'new', model: '', ts: '2025-03-01T08:30:00.000Z', files: { 'x.txt': ['same'] } });
  seedTraces(m, [newer, older]);
  writeFile(m.repo, 'x.txt', ['same']);
  const commit = commitAll(m.repo, 'x');
  assert.is((await commitLink(m)).code, 0);
  const [conversation] = ledgerOf(m, commit).record.files[0].conversations;
  assert.is(conversation.url, 'codex://session/new');
  assert.equal(conversation.contributor, { type: 'ai' });
  assert.equal(conversationTraceIds(conversation), [newer.id]);
});

test('running it again appends nothing and leaves the note alone', async () => {
  const m = machine();
  seedTraces(m, [traceRow({ files: { 'f.txt': ['x'] } })]);
  writeFile(m.repo, 'f.txt', ['x', 'y']);
  const commit = commitAll(m.repo, 'f');
  assert.is((await commitLink(m)).code, 0);
  const noteRef = gitIn(m.repo, ['rev-parse', 'refs/notes/tracer']);
  const again = await commitLink(m, ['--verbose']);
  assert.is(again.code, 0);
  assert.match(again.stdout, /already recorded/);
  assert.is(rawLines(m, 'ledgers.jsonl').length, 1);
  assert.is(rawLines(m, 'commit-links.jsonl').length, 1);
  assert.is(gitIn(m.repo, ['rev-parse', 'refs/notes/tracer']), noteRef, 'no second notes commit');
  assert.is(note(m.repo, commit), `${JSON.stringify(ledgerOf(m, commit).record)}\n`, 'the note is the ledger record, byte for byte');
});

test('two machines (separate homes, a clone) with the same traces write byte-identical ledgers and links', async () => {
  const a = machine();
  const rowsSeeded = [
    traceRow({ files: { 'src/m.ts': ['export const m = 1;', 'export const n = 2;'] } }),
    traceRow({ agent: 'cursor', conversation: 'c-9', model: 'gpt-5', files: { 'src/m.ts': ['// tuned'] } }),
  ];
  seedTraces(a, rowsSeeded);
  writeFile(a.repo, 'src/m.ts', ['// tuned', 'export const m = 1;', 'const local = 0;', 'export const n = 2;']);
  const commit = commitAll(a.repo, 'm');
  assert.is((await commitLink(a)).code, 0);

  const cloneDir = join(tempDir('tracer-clone-'), 'clone');
  gitIn(a.repo, ['clone', '-q', a.repo, cloneDir]);
  const b = machine(cloneDir);
  seedTraces(b, [...rowsSeeded].reverse());
  assert.is((await commitLink(b, ['--commit', commit])).code, 0);

  assert.equal(rawLines(b, 'ledgers.jsonl'), rawLines(a, 'ledgers.jsonl'));
  assert.equal(rawLines(b, 'commit-links.jsonl'), rawLines(a, 'commit-links.jsonl'));
  const ledger = ledgerOf(a, commit);
  assert.equal(ledger.trace_ids, [...rowsSeeded.map((row) => row.id)].sort());
  assert.ok(!JSON.stringify(ledger).includes(a.repo), 'no absolute paths');
});

test('a root commit is attributed against nothing', async () => {
  const m = machine();
  seedTraces(m, [traceRow({ files: { 'main.py': ['print("hi")'] } })]);
  writeFile(m.repo, 'main.py', ['print("hi")']);
  const root = commitAll(m.repo, 'root');
  assert.is((await commitLink(m)).code, 0);
  const ledger = ledgerOf(m, root);
  assert.equal(ledger.record.metadata['dev.tracer'].parents, []);
  assert.is(fileKind(ledger.record.files[0]), 'ai');
});

test('binary files, deletions and names git quotes are handled', async () => {
  const m = machine();
  writeFile(m.repo, 'gone.txt', ['bye']);
  commitAll(m.repo, 'base');
  const odd = 'dir with space/naïve "q".txt';
  seedTraces(m, [traceRow({ files: { [odd]: ['agent wrote this'] } })]);
  writeFile(m.repo, odd, ['agent wrote this']);
  writeFileSync(join(m.repo, 'blob.bin'), Buffer.from([0, 1, 2, 0, 10, 43, 43, 43, 10]));
  gitIn(m.repo, ['rm', '-q', 'gone.txt']);
  const commit = commitAll(m.repo, 'odd');
  assert.is((await commitLink(m)).code, 0);
  assert.equal(
    ledgerOf(m, commit).record.files.map((file: any) => [file.path, fileKind(file)]),
    [[odd, 'ai']],
  );
});

test('as a hook it never fails: a bad revision is logged and exits 0 silently; --verbose reports it', async () => {
  const m = machine();
  commitAll(m.repo, 'base');
  const quiet = await commitLink(m, ['--commit', 'no-such-rev']);
  assert.equal([quiet.code, quiet.stdout, quiet.stderr], [0, '', '']);
  const log = readFileSync(join(m.dir, 'hook-errors.log'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.is(log.at(-1).code, 'unknown_commit');
  assert.is(log.at(-1).event, 'post-commit');
  const loud = await commitLink(m, ['--commit', 'no-such-rev', '--verbose']);
  assert.is(loud.code, 2);
  assert.match(loud.stderr, /\(unknown_commit\)\n$/);
  assert.ok(!existsSync(join(m.dir, 'ledgers.jsonl')), 'nothing recorded');

  const outside = tempDir('tracer-nogit-');
  const result = await commitLink({ ...m, repo: outside }, [], outside);
  assert.equal([result.code, result.stdout, result.stderr], [0, '', '']);
});

function gitIso(repo: string, commit: string): string {
  return new Date(Number(gitIn(repo, ['show', '-s', '--format=%ct', commit])) * 1000).toISOString();
}

test.run();
