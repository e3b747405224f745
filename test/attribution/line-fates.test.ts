import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LedgerLines } from '../../src/attribution/ledger-lines.js';
import { addFate, lineFates, zeroFate, type LineFate } from '../../src/attribution/line-fates.js';
import { cleanEnv, cleanup } from '../helpers/cli.js';
import { commitAll, commitLink, gitIn, machine, seedTraces, traceRow, writeFile, type Machine } from '../capture/ledger-helpers.js';

// What became of the AI lines (issue 33, item 3): followed commit by commit,
// each deletion named after who made it. Every expected figure is counted from
// the edits written below.
test.after(cleanup);

async function agentCommit(
  m: Machine,
  message: string,
  conversation: string,
  files: Record<string, string[]>,
  write: Record<string, string[]>,
  agent = 'claude-code',
): Promise<string> {
  seedTraces(m, [traceRow({ agent, conversation, files })]);
  for (const [path, lines] of Object.entries(write)) writeFile(m.repo, path, lines);
  const commit = commitAll(m.repo, message);
  assert.is((await commitLink(m)).code, 0);
  return commit;
}

async function personCommit(m: Machine, message: string, write: Record<string, string[]>): Promise<string> {
  for (const [path, lines] of Object.entries(write)) writeFile(m.repo, path, lines);
  const commit = commitAll(m.repo, message);
  assert.is((await commitLink(m)).code, 0);
  return commit;
}

async function fatesOf(m: Machine, revisions: string[], scope: string[]): Promise<Map<string, LineFate>> {
  const ledgers = await LedgerLines.read(m.dir);
  const fates = await lineFates({
    git: { cwd: m.repo, env: cleanEnv() },
    revisions,
    scope: new Set(scope),
    ledgerOf: (commit) => ledgers.ledgersOf([commit]).get(commit),
  });
  const byUrl = new Map<string, LineFate>();
  for (const byConversation of fates.values())
    for (const [url, { fate }] of byConversation) addFate(byUrl.get(url) ?? byUrl.set(url, zeroFate()).get(url)!, fate);
  return byUrl;
}

const fate = (added: number, alive: number, deleted: Partial<LineFate['deleted']> = {}): LineFate => ({
  added,
  alive,
  deleted: { person: 0, other_agent: 0, same_conversation: 0, unknown: 0, ...deleted },
});

test('another agent replacing a line, the same conversation revising one, a person deleting one, across a rename', async () => {
  const m = machine();
  writeFile(m.repo, 'README.md', ['# fates']);
  const base = commitAll(m.repo, 'base');
  const A = [
    'export const one = 1;',
    'export const two = 2;',
    'export const three = 3;',
    'export const four = 4;',
    'export const five = 5;',
  ];
  const a = await agentCommit(m, 'A writes f.ts', 'conv-a', { 'src/f.ts': A }, { 'src/f.ts': A });
  // Conversation B replaces line 2; conversation A itself rewrites line 3.
  const withB = [A[0]!, 'export const two = "two";', A[2]!, A[3]!, A[4]!];
  const b = await agentCommit(m, 'B replaces two', 'conv-b', { 'src/f.ts': ['export const two = "two";'] }, { 'src/f.ts': withB }, 'codex');
  const withA = [withB[0]!, withB[1]!, 'export const three = 3.0;', withB[3]!, withB[4]!];
  const a2 = await agentCommit(m, 'A revises three', 'conv-a', { 'src/f.ts': ['export const three = 3.0;'] }, { 'src/f.ts': withA });
  // The file moves; then a person deletes line 4 ("four") of the moved file and replaces line 5 by hand.
  gitIn(m.repo, ['mv', 'src/f.ts', 'src/g.ts']);
  const moved = await personCommit(m, 'move', {});
  const byHand = [withA[0]!, withA[1]!, withA[2]!, 'export const five = 50; // by hand'];
  const person = await personCommit(m, 'a person edits', { 'src/g.ts': byHand });

  const fates = await fatesOf(m, [`${base}..HEAD`], [a, b, a2, moved, person]);
  // A's five lines: "two" replaced by B, "three" rewritten by A itself, "four" deleted and "five" replaced by a person; "one" stays.
  // A's later line ("three = 3.0") stays. B's line stays.
  assert.equal(fates.get('claude-code://session/conv-a'), fate(6, 2, { other_agent: 1, same_conversation: 1, person: 2 }));
  assert.equal(fates.get('codex://session/conv-b'), fate(1, 1));
});

test("a branch merged with a merge commit: its agent's lines are followed from the merge, found by blame", async () => {
  const m = machine();
  writeFile(m.repo, 'README.md', ['# merges']);
  const base = commitAll(m.repo, 'base');
  gitIn(m.repo, ['checkout', '-q', '-b', 'side']);
  const C = ['export function c() {', '  return "c";', '}'];
  const c = await agentCommit(m, 'C writes h.ts on a branch', 'conv-c', { 'src/h.ts': C }, { 'src/h.ts': C });
  gitIn(m.repo, ['checkout', '-q', 'main']);
  writeFile(m.repo, 'NOTES.md', ['meanwhile on main']);
  const main = commitAll(m.repo, 'meanwhile');
  assert.is((await commitLink(m)).code, 0);
  gitIn(m.repo, ['merge', '-q', '--no-ff', '-m', 'merge side', 'side'], { home: m.home });
  const merge = gitIn(m.repo, ['rev-parse', 'HEAD']);
  const after = await personCommit(m, 'a person changes c', { 'src/h.ts': [C[0]!, '  return "C";', C[2]!] });

  const fates = await fatesOf(m, [`${base}..HEAD`], [c, main, merge, after]);
  assert.equal(fates.get('claude-code://session/conv-c'), fate(3, 2, { person: 1 }));
  // Out of scope, C's lines are not followed at all.
  const none = await fatesOf(m, [`${base}..HEAD`], [main, merge, after]);
  assert.is(none.get('claude-code://session/conv-c'), undefined);
});

test('a commit without a ledger deleting an AI line: deleted by someone unknown, never counted as rework', async () => {
  const m = machine();
  writeFile(m.repo, 'README.md', ['# unknown']);
  const base = commitAll(m.repo, 'base');
  const D = ['export const d = 1;', 'export const e = 2;'];
  const d = await agentCommit(m, 'D', 'conv-d', { 'src/d.ts': D }, { 'src/d.ts': D });
  writeFile(m.repo, 'src/d.ts', [D[0]!]);
  // No commit-link: this commit was made where tracer was not installed.
  const foreign = commitAll(m.repo, 'elsewhere');
  const fates = await fatesOf(m, [`${base}..HEAD`], [d, foreign]);
  assert.equal(fates.get('claude-code://session/conv-d'), fate(2, 1, { unknown: 1 }));
});

test.run();
