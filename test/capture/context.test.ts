import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { appendFileSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup, git, sandbox, tempDir, tempRepo } from '../helpers/cli.js';
import { fixturePath, hook, payload, projectDir } from './hook-fixtures.js';

test.after(cleanup);

const CLAUDE = '0d8f6c1e-5a2b-4c47-9d7e-3f1b2a6c9e10';
const CODEX = '019a2f4e-7c1d-7b90-a3e5-6f2d8c0b1a44';
const GREET = 'export function greet(name: string): string {\n  return `Hello, ${name}!`;\n}\n';

/** A Claude Code session writes src/greet.ts, a person adds a line, the commit is linked; then a Codex session stops. */
async function recordedWork() {
  const box = sandbox();
  const transcript = join(tempDir('claude-transcripts-'), 'session.jsonl');
  copyFileSync(fixturePath('claude-code', 'transcript.jsonl'), transcript);
  const send = (agent: string, event: string, name = event) =>
    hook(agent, event, payload(agent, name, { repo: box.repo, transcript }), { cwd: box.repo, home: box.home });
  mkdirSync(join(box.repo, 'src'));
  writeFileSync(join(box.repo, 'src/greet.ts'), GREET);
  await send('claude-code', 'PostToolUse', 'PostToolUse.Write');
  await send('claude-code', 'Stop');
  appendFileSync(join(box.repo, 'src/greet.ts'), '// reviewed by a person\n');
  git(box.repo, 'add', '-A');
  git(box.repo, 'commit', '-q', '-m', 'greet helper');
  const linked = await box.run(['commit-link']);
  assert.is(linked.code, 0, linked.stderr);
  await send('codex', 'Stop');
  return { ...box, commit: git(box.repo, 'rev-parse', 'HEAD') };
}

test("--json: sessions newest first with files and latest summary, and the commit's ai/human line counts", async () => {
  const { run, commit, home } = await recordedWork();
  const result = await run(['context', '--json']);
  assert.is(result.code, 0, result.stderr);
  const digest = JSON.parse(result.stdout);
  assert.is(digest.project_id.length > 0, true);
  assert.equal(
    digest.sessions.map((session: any) => [session.agent, session.conversation_id, session.events]),
    [
      ['codex', CODEX, 1],
      ['claude-code', CLAUDE, 2],
    ],
  );
  const claude = digest.sessions[1];
  assert.equal(claude.files, ['src/greet.ts']);
  assert.is(claude.conversation_url, `claude-code://session/${CLAUDE}`);
  assert.is(claude.summary, "Added `greet()` in src/greet.ts.\n\nsrc/main.ts now prints greet('world').");
  assert.ok(claude.first_ts <= claude.last_ts);
  assert.is(digest.sessions[0].summary, 'Added a 1.1.0 entry to CHANGELOG.md and bumped pkg/version.txt to 1.1.0.');
  assert.equal(digest.commits, [
    { commit, ts: digest.commits[0].ts, lines: { ai: 3, human: 1, mixed: 0 }, files: { ai: 0, human: 0, mixed: 1 } },
  ]);
  assert.ok(projectDir(home).length > 0);
});

test('text form: compact lines an agent can read; --limit caps sessions and commits', async () => {
  const { run, commit } = await recordedWork();
  const full = await run(['context']);
  assert.is(full.code, 0, full.stderr);
  assert.match(full.stdout, /Recent sessions \(2, newest first\):/);
  assert.match(
    full.stdout,
    /- claude-code 0d8f6c1e-5a2…: .* 2 events\n {2}files: src\/greet\.ts\n {2}summary: Added `greet\(\)` in src\/greet\.ts\. src\/main\.ts now prints greet\('world'\)\./,
  );
  assert.ok(full.stdout.includes(`- ${commit.slice(0, 12)} `));
  assert.match(full.stdout, /ai 3, human 1 lines in 1 file \(1 mixed\)/);
  const limited = JSON.parse((await run(['context', '--json', '--limit', '1'])).stdout);
  assert.is(limited.sessions.length, 1);
  assert.is(limited.sessions[0].agent, 'codex');
});

test('an amended commit shows once, under its new id', async () => {
  const { run, repo, commit } = await recordedWork();
  writeFileSync(join(repo, 'NOTES.md'), 'notes\n');
  git(repo, 'add', 'NOTES.md');
  git(repo, 'commit', '-q', '--amend', '--no-edit');
  const amended = git(repo, 'rev-parse', 'HEAD');
  const rewritten = await run(['rewrite-ledger', 'amend'], { input: `${commit} ${amended}\n` });
  assert.is(rewritten.code, 0, rewritten.stderr);
  const digest = JSON.parse((await run(['context', '--json'])).stdout);
  assert.equal(
    digest.commits.map((entry: any) => entry.commit),
    [amended],
  );
});

test('ledgers written before `record` existed are read too: old and new shapes side by side', async () => {
  const { run, home, commit } = await recordedWork();
  const dir = projectDir(home);
  const current = JSON.parse(readFileSync(join(dir, 'ledgers.jsonl'), 'utf8').trim().split('\n').at(-1)!);
  const old = {
    sha: 'c'.repeat(64),
    version: '0.1',
    id: '3f1c2b4a-5d6e-8f70-8a1b-2c3d4e5f6a7b',
    timestamp: '2020-01-01T00:00:00.000Z',
    ts: '2020-01-01T00:00:00.000Z',
    commit: 'd'.repeat(40),
    vcs: { type: 'git', revision: 'd'.repeat(40) },
    tool: { name: 'tracer' },
    trace_ids: [],
    files: [
      {
        path: 'old.txt',
        contributor: { type: 'human' },
        conversations: [{ contributor: { type: 'human' }, ranges: [{ start_line: 1, end_line: 4 }] }],
      },
    ],
    metadata: { 'dev.tracer': { parents: [], lines: { ai: 0, human: 4 } } },
  };
  appendFileSync(join(dir, 'ledgers.jsonl'), `${JSON.stringify(old)}\n`);
  const digest = JSON.parse((await run(['context', '--json'])).stdout);
  assert.equal(
    digest.commits.map((entry: any) => [entry.commit, entry.lines, entry.files]),
    [
      [commit, { ai: 3, human: 1, mixed: 0 }, { ai: 0, human: 0, mixed: 1 }],
      ['d'.repeat(40), { ai: 0, human: 4, mixed: 0 }, { ai: 0, human: 1, mixed: 0 }],
    ],
  );
  assert.ok(current.record, 'the ledger tracer writes now has its record');
});

test('a fresh project prints empty sections; a repository without a project or a bad --limit is refused', async () => {
  const { run } = sandbox();
  await run(['init']);
  const empty = await run(['context']);
  assert.is(empty.code, 0, empty.stderr);
  assert.match(empty.stdout, /Recent sessions: none recorded yet\.\n\nRecent commits: no attribution ledgers yet\./);

  const home = join(tempDir('tracer-home-'), 'home');
  const bare = await sandbox().run(['context'], { cwd: tempRepo(), home });
  assert.is(bare.code, 3);
  assert.match(bare.stderr, /\(project_not_initialized\)/);
  const bad = await run(['context', '--limit', '0']);
  assert.is(bad.code, 2);
});

test.run();
