import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, runTracer, tempDir } from '../helpers/cli.js';
import { spawnService, stopAllServices } from '../helpers/service.js';
import { gitIn } from '../capture/ledger-helpers.js';
import { INSTALL, job, jobPath, type Job } from '../attribution/ci-runner.js';
import { squashOnService } from '../attribution/reconcile-fixture.js';
import { githubExpressions, githubStep, readWorkflowYaml } from '../attribution/workflow-yaml.js';
import { agentHook, commit, transcriptCopy } from './agents.js';

/**
 * Issue 33, "Must hold": a pull request built through the real hooks (Claude
 * Code and Codex, each with a real transcript; a person's commit that deletes
 * some of Claude Code's lines), pushed to a real `tracer serve`; the CI job
 * `tracer ci github` wrote posts its comment, whose AI lines, rework, tokens and
 * cost must match a count made here from the fixtures. Then the service squash-
 * merges it, the merge job reconciles, and a teammate's stats of the squash
 * carry the same conversations and cost.
 */
test.after(async () => {
  await stopAllServices();
  cleanup();
});

/** What Claude Code writes (8 lines), what the person deletes of it (3), what Codex writes (5): every line non-blank. */
const PARSE = [
  'export function parse(input: string): number[] {',
  '  const parts = input.split(",");',
  '  const numbers = parts.map((part) => part.trim());',
  '  const checked = numbers.filter((part) => part !== "");',
  '  const unused = checked.length;',
  '  console.log("parsed", unused);',
  '  return checked.map(Number);',
  '}',
];
const DELETED_BY_PERSON = [4, 5, 6]; // 1-based lines of PARSE
const TOTAL = [
  'export function total(values: number[]): number {',
  '  let sum = 0;',
  '  for (const value of values) sum += value;',
  '  return sum;',
  '}',
];

// Counted by hand from the fixtures (test/transcript/usage-fixtures.test.ts has the line-by-line counts):
// claude-code/usage.jsonl, claude-sonnet-4-20250514: input 57, output 3306, cache write 28933, cache read 293447;
// codex/rollout-usage.jsonl, gpt-5.3-codex: input 59525 (uncached), output 1123, cache read 238848.
const TOKENS = { input: 57 + 59525, output: 3306 + 1123, cache_write: 28933, cache_read: 293447 + 238848 };
// The providers' published prices per million tokens: Claude Sonnet 4 $3 input, $15 output, $3.75 cache write, $0.30
// cache read; gpt-5.3-codex $1.75 input, $14 output, $0.175 cached input.
const COST = (57 * 3 + 3306 * 15 + 28933 * 3.75 + 293447 * 0.3) / 1e6 + (59525 * 1.75 + 1123 * 14 + 238848 * 0.175) / 1e6;

test('a pull request by Claude Code and Codex, a person deleting AI lines, a squash merge: the CI comment counts what the fixtures hold', async () => {
  const service = await spawnService();
  await service.createProject('acme', 'tools');
  const token = await service.createToken({ org: 'acme', project: 'tools' });
  const url = `${service.url}/acme/tools`;

  const home = join(tempDir('tracer-pr-home-'), 'home');
  const repo = join(tempDir('tracer-pr-'), 'repo');
  const origin = join(tempDir('tracer-pr-origin-'), 'origin.git');
  gitIn(tempDir(), ['init', '-q', '--bare', '-b', 'main', origin]);
  mkdirSync(repo);
  gitIn(repo, ['init', '-q', '-b', 'main']);
  writeFileSync(join(repo, 'README.md'), '# tools\n');
  const init = await runTracer(['init', '--agents', 'claude-code,codex'], { cwd: repo, home });
  assert.is(init.code, 0, init.stderr);
  const base = commit(repo, home, 'base, with the agents hooks');
  gitIn(repo, ['remote', 'add', 'origin', origin]);
  gitIn(repo, ['push', '-q', '-u', 'origin', 'main']);
  gitIn(repo, ['checkout', '-q', '-b', 'feature']);

  // Claude Code writes src/parse.ts; its turn ends (Stop), which snapshots its transcript.
  const claudeTranscript = transcriptCopy('claude-code/usage.jsonl');
  mkdirSync(join(repo, 'src'));
  const parseText = `${PARSE.join('\n')}\n`;
  writeFileSync(join(repo, 'src/parse.ts'), parseText);
  const claude = { session_id: 'c1a0de00-0000-4000-8000-00000000c0de', transcript_path: claudeTranscript, cwd: repo };
  await agentHook(repo, home, 'claude-code', 'PostToolUse', {
    ...claude,
    hook_event_name: 'PostToolUse',
    tool_name: 'Write',
    tool_input: { file_path: join(repo, 'src/parse.ts'), content: parseText },
    tool_response: { filePath: join(repo, 'src/parse.ts'), type: 'create' },
  });
  await agentHook(repo, home, 'claude-code', 'Stop', { ...claude, hook_event_name: 'Stop', stop_hook_active: false });
  commit(repo, home, 'parse, by Claude Code');

  // Codex adds src/total.ts with apply_patch through its shell tool, then stops.
  const codexTranscript = transcriptCopy('codex/rollout-usage.jsonl');
  writeFileSync(join(repo, 'src/total.ts'), `${TOTAL.join('\n')}\n`);
  const codex = {
    session_id: '019c8bfe-ec25-79e0-97d7-bda6a9c575ff',
    transcript_path: codexTranscript,
    cwd: repo,
    turn_id: '019c8bfe-f000-7000-8000-000000000001',
    model: 'gpt-5.3-codex',
    permission_mode: 'bypassPermissions',
  };
  const patch = `apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: src/total.ts\n${TOTAL.map((line) => `+${line}`).join('\n')}\n*** End Patch\nEOF\n`;
  await agentHook(repo, home, 'codex', 'PostToolUse', {
    ...codex,
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command: patch },
    tool_use_id: 'call_patch',
    tool_response: 'Success. Updated the following files:\nA src/total.ts\n',
  });
  await agentHook(repo, home, 'codex', 'Stop', {
    ...codex,
    hook_event_name: 'Stop',
    stop_hook_active: false,
    last_assistant_message: 'Added total().',
  });
  commit(repo, home, 'total, by Codex');

  // A person deletes three of Claude Code's lines.
  writeFileSync(join(repo, 'src/parse.ts'), `${PARSE.filter((_, index) => !DELETED_BY_PERSON.includes(index + 1)).join('\n')}\n`);
  const head = commit(repo, home, 'no logging, by hand', 'Robin');

  gitIn(repo, ['push', '-q', 'origin', 'feature', 'feature:refs/pull/7/head']);
  assert.is((await runTracer(['remote', 'add', 'origin', url, '--token', token], { cwd: repo, home })).code, 0);
  const pushed = await runTracer(['push'], { cwd: repo, home });
  assert.is(pushed.code, 0, pushed.stderr);

  // The pull-request job of the workflow tracer ci github writes, run as GitHub runs it.
  const written = await runTracer(['ci', 'github', '--url', url, '--install', INSTALL], { cwd: repo, home });
  assert.is(written.code, 0, written.stderr);
  const workflow = readWorkflowYaml(readFileSync(join(repo, '.github/workflows/tracer.yml'), 'utf8'));
  const path = jobPath();
  const expressions = {
    'secrets.TRACER_TOKEN': token,
    'github.token': 'ghs_job_token',
    'github.event.pull_request.number': '7',
    'github.event.pull_request.base.sha': base,
    'github.event.pull_request.head.sha': head,
  };
  const runSteps = async (ci: Job, name: string, steps: string[], values: Record<string, string>, extra: Record<string, string> = {}) => {
    for (const title of steps) {
      const step = githubStep(workflow, name, title);
      const stepEnv = Object.fromEntries(Object.entries(step.env).map(([key, value]) => [key, githubExpressions(value, values)]));
      const result = await ci.run(githubExpressions(step.run, values), { ...stepEnv, ...extra });
      assert.is(result.status, 0, `${title}: ${result.output}`);
    }
  };
  const summary = join(tempDir('tracer-ci-summary-'), 'summary.md');
  writeFileSync(summary, '');
  await runSteps(
    job(origin, path.dir),
    'stats',
    ['Install tracer', 'Attribution of this pull request', 'Job summary and comment'],
    expressions,
    {
      GITHUB_STEP_SUMMARY: summary,
    },
  );
  const comment = path.posted().find((call) => call.tool === 'gh' && call.code === 0)?.body;
  assert.ok(comment, 'the job commented');

  /** The first figure of a table row of the comment, by its label. */
  const row = (label: string) => new RegExp(`^\\| ${label.replace(/[()]/g, '\\$&')} \\| ([^|]+) \\|`, 'm').exec(comment!)?.[1]?.trim();
  const number = (text: string) => Number(text.replaceAll(',', ''));
  // AI lines: what each agent commit added (8 + 5), as the ledgers hold them.
  assert.is(row('AI agent'), String(PARSE.length + TOTAL.length));
  assert.is(row('AI lines landed'), String(PARSE.length + TOTAL.length));
  assert.is(row('AI lines written'), String(PARSE.length + TOTAL.length));
  assert.is(row('Rework: AI lines deleted later by a person'), String(DELETED_BY_PERSON.length));
  assert.is(row('Rework: AI lines deleted later by another agent'), '0');
  assert.is(row(`AI lines still at \`${head.slice(0, 12)}\``), String(PARSE.length + TOTAL.length - DELETED_BY_PERSON.length));
  assert.is(row('Conversations behind the AI lines'), '2');
  assert.is(number(row('Input tokens (uncached)')!), TOKENS.input);
  assert.is(number(row('Output tokens')!), TOKENS.output);
  assert.is(number(row('Cache write tokens')!), TOKENS.cache_write);
  assert.is(number(row('Cache read tokens')!), TOKENS.cache_read);
  assert.is(row('Cost'), `$${COST.toFixed(4)}`);
  assert.match(comment!, /Prices: genai-prices 0\.1\.8/);

  // The service squash-merges; the merge job reconciles and pushes; a teammate pulls and asks for the squash's stats.
  const before = gitIn(origin, ['rev-parse', 'main']);
  const squash = squashOnService(origin, 'feature', 'Parse and total (#7)');
  await runSteps(job(origin, path.dir), 'reconcile', ['Install tracer', 'Reconcile the merged commits and push their ledgers'], {
    ...expressions,
    'github.event.before': before,
    'github.sha': squash,
  });
  const teammateHome = join(tempDir('tracer-pr-b-'), 'home');
  const teammate = join(tempDir('tracer-pr-b-'), 'repo');
  gitIn(tempDir(), ['clone', '-q', `file://${origin}`, teammate]);
  const inTeammate = (args: string[]) => runTracer(args, { cwd: teammate, home: teammateHome });
  assert.is((await inTeammate(['init', '--agents', 'none', '--no-git-hooks'])).code, 0);
  assert.is((await inTeammate(['remote', 'add', 'tracer', url, '--token', token, '--default'])).code, 0);
  const pulled = await inTeammate(['pull']);
  assert.is(pulled.code, 0, pulled.stderr);
  const stats = await inTeammate(['stats', `${before}..${squash}`, '--cost', '--json']);
  assert.is(stats.code, 0, stats.stderr);
  const report = JSON.parse(stats.stdout);
  const survived = PARSE.length + TOTAL.length - DELETED_BY_PERSON.length;
  assert.is(report.lines.ai, survived, 'the squash holds what survived the branch');
  assert.is(report.cost.conversations, 2);
  assert.is(report.cost.landed, survived);
  assert.is(report.cost.at_tip, survived);
  assert.is(report.cost.tip, 'main');
  assert.equal(
    {
      input: report.cost.tokens.input,
      output: report.cost.tokens.output,
      cache_write: report.cost.tokens.cache_write,
      cache_read: report.cost.tokens.cache_read,
    },
    TOKENS,
  );
  assert.ok(Math.abs(report.cost.cost_usd - COST) < 1e-9, `the squash's conversations cost $${report.cost.cost_usd}, not $${COST}`);
  assert.is(report.cost.rework, 0, 'nothing came after the squash on main');
  await service.stop();
});

test.run();
