import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, runMain } from '../helpers/cli.js';
import { commitAll, commitLink, gitIn, ledgerOf, linesByType, note, rows, writeFile } from '../capture/ledger-helpers.js';
import { AGENT_ONE, AGENT_TWO, pullRequestRepo, rebaseOnService, reconcileIn, squashOnService, teammate } from './reconcile-fixture.js';

test.after(cleanup);

const CLAUDE = {
  type: 'ai',
  agent: 'claude-code',
  model_id: 'anthropic/claude-sonnet-4-5',
  conversation_url: 'claude-code://session/session-one',
};
const CODEX = { type: 'ai', agent: 'codex', model_id: 'openai/gpt-5-codex', conversation_url: 'codex://session/session-two' };
const PERSON = { type: 'human', agent: null, model_id: null, conversation_url: null };

async function blame(m: { repo: string; home: string }, path: string) {
  const result = await runMain(['blame', path, '--json'], { cwd: m.repo, home: m.home });
  assert.is(result.code, 0, result.stderr);
  return JSON.parse(result.stdout).lines.map((line: any) => ({
    type: line.type,
    agent: line.agent,
    model_id: line.model_id,
    conversation_url: line.conversation_url,
  }));
}

async function statsOf(m: { repo: string; home: string }, range: string) {
  const result = await runMain(['stats', range, '--json'], { cwd: m.repo, home: m.home });
  assert.is(result.code, 0, result.stderr);
  return JSON.parse(result.stdout);
}

const PARSE_BLAME = [CLAUDE, CLAUDE, PERSON, CLAUDE, CLAUDE];

test('squash and merge: the squash commit gets the branch attribution, the person’s line between agent lines stays human', async () => {
  const pr = await pullRequestRepo();
  const squash = squashOnService(pr.origin, 'feature', 'Parse and total (#7)');
  gitIn(pr.a.repo, ['pull', '-q', '--no-rebase', 'origin', 'main']);
  const UNKNOWN = { type: 'unknown', agent: null, model_id: null, conversation_url: null };
  assert.equal(await blame(pr.a, 'src/parse.ts'), Array(5).fill(UNKNOWN), 'before: nothing maps the branch to main');

  const result = await reconcileIn(pr.a, ['--json']);
  assert.is(result.code, 0, result.stderr);
  const report = JSON.parse(result.stdout);
  assert.is(report.reconciled.length, 1);
  const done = report.reconciled[0];
  assert.equal([done.commit, done.method, done.written], [squash, 'pull-request', true]);
  assert.equal(done.sources, [pr.agentOne, pr.person, pr.agentTwo].sort());
  assert.equal(done.lines, { ai: 7, human: 1, mixed: 0, unknown: 0 });

  const ledger = ledgerOf(pr.a, squash);
  assert.is(note(pr.a.repo, squash), `${JSON.stringify(ledger.record)}\n`, 'the note is the record, byte for byte');
  const parse = ledger.record.files.find((file: any) => file.path === 'src/parse.ts');
  assert.equal(linesByType(parse), { ai: [1, 2, 4, 5], human: [3] });
  assert.equal(await blame(pr.a, 'src/parse.ts'), PARSE_BLAME);
  assert.equal(await blame(pr.a, 'src/total.ts'), [CODEX, CODEX, CODEX]);

  const squashStats = await statsOf(pr.a, `${squash}^!`);
  const branchStats = await statsOf(pr.a, `${pr.base}..${pr.agentTwo}`);
  assert.equal(squashStats.lines, branchStats.lines, 'the squash counts what the branch counted');
  assert.equal(squashStats.by_agent, branchStats.by_agent);
  assert.equal(squashStats.by_model, branchStats.by_model);
  const link = rows(pr.a, 'commit-links.jsonl').find((row) => row.commit === squash);
  assert.equal([link.ledger_sha, link.session_ids], [ledger.sha, ['session-one', 'session-two']]);

  const again = await reconcileIn(pr.a, ['--json']);
  assert.equal(JSON.parse(again.stdout).reconciled, [], 'a second run finds nothing to do');
  assert.is(rows(pr.a, 'ledgers.jsonl').filter((row) => row.commit === squash).length, 1);
});

test("the squash's link keeps its subject as capture would: a token in it is its placeholder, the link marked redacted", async () => {
  const pr = await pullRequestRepo();
  // A GitHub token's shape, made here: never a real credential.
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const token = `ghs_${[...randomBytes(36)].map((byte) => alphabet[byte % alphabet.length]).join('')}`;
  const squash = squashOnService(pr.origin, 'feature', `Parse and total, CI uses ${token} (#7)`);
  gitIn(pr.a.repo, ['pull', '-q', '--no-rebase', 'origin', 'main']);
  const result = await reconcileIn(pr.a, ['--json']);
  assert.is(result.code, 0, result.stderr);
  assert.equal(
    JSON.parse(result.stdout).reconciled.map((done: any) => [done.commit, done.method]),
    [[squash, 'pull-request']],
  );
  const link = rows(pr.a, 'commit-links.jsonl').find((row) => row.commit === squash);
  assert.match(link.subject, /^Parse and total, CI uses \[REDACTED:github-token:[0-9a-f]{6}\] \(#7\)$/);
  assert.is(link.redacted, true);
  const stored = readFileSync(join(pr.a.dir, 'commit-links.jsonl'), 'utf8');
  assert.not.ok(stored.includes(token.slice(4)), 'commit-links.jsonl holds no token');
  const before = rows(pr.a, 'commit-links.jsonl').filter((row) => row.commit !== squash);
  assert.ok(
    before.every((row) => row.redacted === true && !row.subject.includes('REDACTED')),
    "the branch's own links: benign subjects kept, marked",
  );
});

test('the squash records its claims as a commit recorded by post-commit: a person’s later copy of an agent’s line stays the person’s', async () => {
  const pr = await pullRequestRepo();
  const squash = squashOnService(pr.origin, 'feature', 'Parse and total (#7)');
  gitIn(pr.a.repo, ['pull', '-q', '--no-rebase', 'origin', 'main']);
  assert.is((await reconcileIn(pr.a)).code, 0);
  const state = JSON.parse(readFileSync(join(pr.a.dir, 'attribution-state.json'), 'utf8'));
  const ledger = ledgerOf(pr.a, squash);
  // The trace lines the squash carries are those its branch's commits claimed.
  const branch = Object.assign({}, ...[pr.agentOne, pr.person, pr.agentTwo].map((commit) => state.commits[commit].claims));
  assert.equal(Object.keys(branch).length, 2, 'two traces, one per agent commit');
  assert.equal(state.commits[squash], { ts: ledger.ts, ledger_sha: ledger.sha, claims: branch });
  assert.is(state.last_commit, squash);

  // On main, a person copies two of the agent's lines (the branch commits, which claimed them, are no ancestors of main).
  writeFile(pr.a.repo, 'src/total.ts', [...AGENT_TWO, 'export function sum(values: number[]) {', AGENT_TWO[1]!, AGENT_TWO[2]!]);
  const later = commitAll(pr.a.repo, 'sum, by hand');
  assert.is((await commitLink(pr.a)).code, 0);
  assert.equal(linesByType(ledgerOf(pr.a, later).record.files[0]), { human: [4, 5, 6] });
});

test('a teammate who never had the branch fetches the request head and writes the same bytes', async () => {
  const pr = await pullRequestRepo();
  const squash = squashOnService(pr.origin, 'feature', 'Parse and total (#7)');
  gitIn(pr.origin, ['branch', '-D', 'feature']);
  const b = teammate(pr.origin, pr.a);
  gitIn(pr.a.repo, ['pull', '-q', '--no-rebase', 'origin', 'main']);
  assert.is((await reconcileIn(pr.a)).code, 0);

  const result = await reconcileIn(b);
  assert.is(result.code, 0, result.stderr);
  assert.match(result.stdout, /reconciled by pull-request from 3 commits: 7 ai, 1 human/);
  assert.equal(ledgerOf(b, squash), ledgerOf(pr.a, squash), 'the same ledger, so the service keeps one row');
  assert.equal(await blame(b, 'src/parse.ts'), PARSE_BLAME);
  assert.is(gitIn(b.repo, ['rev-parse', 'refs/tracer/pull/7']), pr.agentTwo, 'the head was fetched under refs/tracer/');
});

test('rebase and merge: each replayed commit gets its own source’s attribution by patch-id', async () => {
  const pr = await pullRequestRepo();
  // main moves first, so the replayed commits land on another base.
  const work = teammate(pr.origin, pr.a);
  writeFile(work.repo, 'NOTES.md', ['moved on']);
  commitAll(work.repo, 'main moves');
  gitIn(work.repo, ['push', '-q', 'origin', 'main']);
  const landed = rebaseOnService(pr.origin, 'feature');
  gitIn(pr.a.repo, ['pull', '-q', '--no-rebase', 'origin', 'main']);
  const result = await reconcileIn(pr.a, ['--json']);
  assert.is(result.code, 0, result.stderr);
  const report = JSON.parse(result.stdout);
  assert.equal(
    report.reconciled.map((done: any) => [done.commit, done.method, done.sources]),
    [
      [landed[0], 'patch-id', [pr.agentOne]],
      [landed[1], 'patch-id', [pr.person]],
      [landed[2], 'patch-id', [pr.agentTwo]],
    ],
  );
  assert.equal(linesByType(ledgerOf(pr.a, landed[1]!).record.files[0]), { human: [3] });
  for (const commit of landed) {
    assert.is(note(pr.a.repo, commit), `${JSON.stringify(ledgerOf(pr.a, commit).record)}\n`, 'notes written together, byte for byte');
  }
  assert.equal(await blame(pr.a, 'src/parse.ts'), PARSE_BLAME);
  const link = rows(pr.a, 'commit-links.jsonl').find((row) => row.commit === landed[0]);
  assert.is(link.rewritten_from, pr.agentOne);
  const state = JSON.parse(readFileSync(join(pr.a.dir, 'attribution-state.json'), 'utf8'));
  assert.equal(
    landed.map((commit) => state.commits[commit].claims),
    [pr.agentOne, pr.person, pr.agentTwo].map((commit) => state.commits[commit].claims),
    'each copy claims what its source claimed; the sources keep theirs (their branch may go on)',
  );
});

test('cherry-pick onto another branch: blame, show and stats reconcile it on demand', async () => {
  const pr = await pullRequestRepo();
  gitIn(pr.a.repo, ['checkout', '-q', '-b', 'release', 'main']);
  gitIn(pr.a.repo, ['cherry-pick', pr.agentTwo]);
  const picked = gitIn(pr.a.repo, ['rev-parse', 'HEAD']);
  assert.equal(await blame(pr.a, 'src/total.ts'), [CODEX, CODEX, CODEX], 'blame reconciled what it read');
  assert.equal(linesByType(ledgerOf(pr.a, picked).record.files[0]), { ai: [1, 2, 3] });
  assert.is(note(pr.a.repo, picked), `${JSON.stringify(ledgerOf(pr.a, picked).record)}\n`);

  gitIn(pr.a.repo, ['cherry-pick', pr.agentOne]);
  const second = gitIn(pr.a.repo, ['rev-parse', 'HEAD']);
  const show = await runMain(['show', '--json'], { cwd: pr.a.repo, home: pr.a.home });
  assert.is(show.code, 0, show.stderr);
  assert.equal(JSON.parse(show.stdout).lines, { ai: 4, human: 0, mixed: 0, unknown: 0 }, 'show reconciled it');
  assert.equal(JSON.parse(show.stdout).link.rewritten_from, pr.agentOne);
  assert.ok(ledgerOf(pr.a, second));
});

test('never misattribute: a person’s direct commit, and a (#N) whose head nobody has, stay as they are', async () => {
  const pr = await pullRequestRepo();
  // The same text the agent wrote, typed by a person straight on main: no source, no ledger.
  writeFile(pr.a.repo, 'src/total.ts', AGENT_TWO);
  const direct = commitAll(pr.a.repo, 'total, typed by hand');
  writeFile(pr.a.repo, 'src/parse.ts', AGENT_ONE);
  const orphan = commitAll(pr.a.repo, 'parse (#99)');
  const result = await reconcileIn(pr.a, ['--json']);
  assert.is(result.code, 0, result.stderr);
  const report = JSON.parse(result.stdout);
  assert.equal(report.reconciled, []);
  assert.ok(report.without_source.includes(direct) && report.without_source.includes(orphan));
  assert.is(ledgerOf(pr.a, direct), undefined);
  assert.is(note(pr.a.repo, direct), undefined);
  assert.equal(
    (await blame(pr.a, 'src/total.ts')).map((line: any) => line.type),
    ['unknown', 'unknown', 'unknown'],
  );
});

test('--dry-run writes nothing; a bad range is refused with a code', async () => {
  const pr = await pullRequestRepo();
  const squash = squashOnService(pr.origin, 'feature', 'Parse and total (#7)');
  gitIn(pr.a.repo, ['pull', '-q', '--no-rebase', 'origin', 'main']);
  const dry = await reconcileIn(pr.a, ['--dry-run']);
  assert.is(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /would reconcile by pull-request/);
  assert.is(ledgerOf(pr.a, squash), undefined);
  assert.is(note(pr.a.repo, squash), undefined);
  const bad = await reconcileIn(pr.a, ['nope..HEAD']);
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /unknown_range/);
});

test.run();
