import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanEnv, cleanup } from '../helpers/cli.js';
import { ASSISTANT, CLAUDE_SESSION, CODEX_SESSION, GEMINI_SESSION, PROMPTS, SECRET, threeAgents } from './agents-fixture.js';

/**
 * `tracer why` on lines written through the real hooks of Claude Code, Codex
 * and Gemini: the prompt before the tool call that wrote each line, the
 * assistant's words around it, the summary and the viewer path; a person's
 * line said plainly; and a commit squash-merged without tracer's hooks (as a
 * merge button does) answered through reconcile.
 */
test.after(cleanup);

let shared: Awaited<ReturnType<typeof threeAgents>> | undefined;
async function box() {
  shared ??= await threeAgents();
  return shared;
}

async function why(target: string, from?: Awaited<ReturnType<typeof threeAgents>>) {
  const b = from ?? (await box());
  const result = await b.run(['why', target, '--json']);
  assert.is(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as { path: string; rev: string; lines: Array<Record<string, any>> };
}

test('Claude Code: the Edit that wrote the line, the prompt before it (redacted as stored), the words around it, the summary', async () => {
  const b = await box();
  const report = await why('requirements.txt:2');
  assert.is(report.lines.length, 1);
  const [line] = report.lines;
  assert.is(line!.content, 'numpy>=1.21.0');
  assert.is(line!.type, 'ai');
  assert.is(line!.agent, 'claude-code');
  assert.match(line!.model_id, /claude-sonnet-4-5/);
  assert.is(line!.commit, b.head);
  assert.is(line!.author, 'Alice Example');
  assert.is(line!.conversation_id, CLAUDE_SESSION);
  assert.is(line!.found, 'content');
  assert.is(line!.tool, 'Edit');
  assert.is(line!.prompt, PROMPTS.claude.replace(SECRET, line!.prompt.match(/\[REDACTED:github-token:[0-9a-f]{6}\]/)![0]));
  assert.not.ok(line!.prompt.includes(SECRET));
  assert.is(line!.assistant_before, ASSISTANT.claudeBefore);
  assert.is(line!.assistant_after, ASSISTANT.claudeAfter);
  assert.is(line!.summary, ASSISTANT.claudeAfter);
  assert.match(line!.url, new RegExp(`^/p/[^/]+/sessions/${CLAUDE_SESSION}$`));
});

test('Codex: apply_patch lines of two files; Gemini: a replace whose line holds quotes', async () => {
  const notes = (await why('NOTES.md:3')).lines[0]!;
  assert.equal(
    [notes.agent, notes.conversation_id, notes.tool, notes.found, notes.prompt, notes.assistant_before, notes.assistant_after],
    ['codex', CODEX_SESSION, 'apply_patch', 'content', PROMPTS.codex, ASSISTANT.codexBefore, ASSISTANT.codexAfter],
  );
  const version = (await why('VERSION')).lines;
  assert.equal(
    version.map((line) => [line.content, line.conversation_id, line.prompt]),
    [['1.1.0', CODEX_SESSION, PROMPTS.codex]],
  );
  const greet = (await why('greet.py:1-2')).lines;
  assert.is(greet.length, 2);
  assert.equal([greet[0]!.type, greet[0]!.conversation_id, greet[0]!.prompt], ['human', null, null]);
  assert.match(greet[0]!.note, /A person wrote this line/);
  assert.equal(
    [greet[1]!.agent, greet[1]!.conversation_id, greet[1]!.tool, greet[1]!.found, greet[1]!.prompt, greet[1]!.assistant_before],
    ['gemini', GEMINI_SESSION, 'replace', 'content', PROMPTS.gemini, ASSISTANT.geminiBefore],
  );
  assert.is(greet[1]!.assistant_after, ASSISTANT.geminiAfter);
});

test('the text output: one block per answer, the prompt quoted, a person line said plainly', async () => {
  const b = await box();
  const result = await b.run(['why', 'greet.py']);
  assert.is(result.code, 0, result.stderr);
  assert.match(result.stdout, /^greet\.py:1 {2}[0-9a-f]{12} {2}HU/m);
  assert.match(result.stdout, /A person wrote this line: no agent conversation is behind it\./);
  assert.match(result.stdout, /^greet\.py:2 {2}[0-9a-f]{12} {2}AI {2}gemini · google\/gemini-2\.5-flash/m);
  assert.ok(result.stdout.includes(`    ${PROMPTS.gemini}\n`));
  assert.match(result.stdout, /view: \/p\/[^/]+\/sessions\//);
});

test('bad targets: a line out of range, a path outside git, malformed ranges', async () => {
  const b = await box();
  const out = await b.run(['why', 'greet.py:99']);
  assert.is(out.code, 2);
  assert.match(out.stderr, /"greet\.py" has only \d+ lines?; ask for lines inside it .*\(line_out_of_range\)/);
  const past = await b.run(['why', 'greet.py:1-99']);
  assert.is(past.code, 2, 'a range that runs past the end is refused, not cut short');
  assert.match(past.stderr, /\(line_out_of_range\)/);
  for (const target of ['greet.py:5-2', 'greet.py:1-', 'greet.py:-1', 'greet.py:0']) {
    const bad = await b.run(['why', target]);
    assert.is(bad.code, 2, target);
    assert.match(bad.stderr, /The lines must be .*\(invalid_usage\)/, target);
  }
  const missing = await b.run(['why', 'nowhere.txt']);
  assert.not.equal(missing.code, 0);
  assert.not.match(missing.stderr, /\n\s+at /);
});

/** git in b's repository as the code host's merge button runs it: another name, and tracer's home for the hooks that run. */
function hubGit(b: { home: string; repo: string }): (...args: string[]) => string {
  const env = {
    ...cleanEnv(),
    TRACER_HOME: b.home,
    GIT_AUTHOR_NAME: 'Hub',
    GIT_AUTHOR_EMAIL: 'hub@example.com',
    GIT_COMMITTER_NAME: 'Hub',
    GIT_COMMITTER_EMAIL: 'hub@example.com',
  };
  return (...args) => {
    const result = spawnSync('git', args, { cwd: b.repo, env, encoding: 'utf8' });
    assert.is(result.status, 0, `git ${args.join(' ')}: ${result.stderr}`);
    return result.stdout.trim();
  };
}

test('a squash merge made without tracer (a merge button), its branch gone: once reconciled, its lines are answered', async () => {
  const b = await threeAgents();
  const git = hubGit(b);
  // The agents' commit is on a branch; main gets one squashed commit made with no hooks at all.
  git('branch', 'feature');
  git('reset', '-q', '--hard', b.base);
  git('merge', '--squash', 'feature');
  git('-c', 'core.hooksPath=/dev/null', 'commit', '-q', '-m', 'Quarterly cleanup (#12)');
  const squash = git('rev-parse', 'HEAD');
  git('branch', '-D', 'feature');
  // blame's quick reconcile on read does not guess at a (#N) whose head nobody has; tracer reconcile (or the post-merge hook) recovers it by content.
  assert.is((await why('greet.py:2', b)).lines[0]!.type, 'unknown');
  const reconcile = await b.run(['reconcile']);
  assert.is(reconcile.code, 0, reconcile.stderr);
  const [line] = (await why('greet.py:2', b)).lines;
  assert.is(line!.commit, squash);
  assert.is(line!.type, 'ai');
  assert.equal([line!.conversation_id, line!.prompt, line!.assistant_before], [GEMINI_SESSION, PROMPTS.gemini, ASSISTANT.geminiBefore]);
  const [notes] = (await why('NOTES.md:3', b)).lines;
  assert.equal([notes!.commit, notes!.conversation_id, notes!.prompt], [squash, CODEX_SESSION, PROMPTS.codex]);
});

test('a rebase-and-merge (the same patch replayed without tracer) is reconciled on read: why answers at once', async () => {
  const b = await threeAgents();
  const git = hubGit(b);
  git('branch', 'feature');
  git('reset', '-q', '--hard', b.base);
  git('-c', 'core.hooksPath=/dev/null', 'cherry-pick', b.head);
  const squash = git('rev-parse', 'HEAD');
  assert.not.equal(squash, b.head);
  const [line] = (await why('requirements.txt:2', b)).lines;
  assert.equal(
    [line!.commit, line!.type, line!.conversation_id, line!.assistant_after],
    [squash, 'ai', CLAUDE_SESSION, ASSISTANT.claudeAfter],
  );
});

test.run();
