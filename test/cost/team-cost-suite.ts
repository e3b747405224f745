import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, git, runTracer, tempDir } from '../helpers/cli.js';
import { spawnService, stopAllServices, type ServiceHandle } from '../helpers/service.js';
import { browserlessClient } from '../server/team-fixture.js';
import { launchBrowser, launchSignedIn } from '../viewer/browser.js';
import { get, login, startViewerProcess } from '../viewer/viewer-process.js';
import { agentHook, commit, transcriptCopy } from './agents.js';

/**
 * Issue 33's team view and session pages: Alice's Claude Code session and
 * Bob's Codex session, recorded through the real hooks with real transcripts
 * and pushed by each; the service reads the transcripts' usage into SQL and
 * answers the cost page and the session page from it. The expected figures are
 * the fixtures' hand counts and the providers' published prices
 * (test/cost/fixture-costs.test.ts), and the local viewer reading Alice's files
 * must say exactly what the service says from SQL.
 */
const CLAUDE = 'a11ce000-0000-4000-8000-00000000c0de';
const CODEX = '019c8bfe-ec25-79e0-97d7-bda6a9c575ff';
const PARSE = ['export function parse(input: string): number[] {', '  return input.split(",").map(Number);', '}'];
const TOTAL = ['export function total(values: number[]): number {', '  return values.reduce((a, b) => a + b, 0);', '}'];
const CLAUDE_USD = (57 * 3 + 3306 * 15 + 28933 * 3.75 + 293447 * 0.3) / 1e6;
const CODEX_USD = (59525 * 1.75 + 1123 * 14 + 238848 * 0.175) / 1e6;
const CLAUDE_TOKENS = { input: 57, output: 3306, cache_write: 28933, cache_read: 293447, reasoning: 0, cache_write_1h: 0 };
const CODEX_TOKENS = { input: 59525, output: 1123, cache_write: 0, cache_read: 238848, reasoning: 483, cache_write_1h: 0 };

interface CostTeam {
  service: ServiceHandle;
  lead: string;
  alice: { repo: string; home: string };
}

async function costTeam(backend: 'sqlite' | 'postgres'): Promise<CostTeam> {
  const service = await spawnService({ backend, signInsPerMinute: 1000 });
  await service.createProject('acme', 'app');
  const url = `${service.url}/acme/app`;
  const tokens = {
    alice: await service.createToken({ org: 'acme', project: 'app', name: 'alice' }),
    bob: await service.createToken({ org: 'acme', project: 'app', name: 'bob' }),
  };
  const lead = await service.createToken({ org: 'acme', name: 'lead' });

  const alice = { repo: join(tempDir('cost-alice-'), 'repo'), home: join(tempDir('cost-alice-'), 'home') };
  mkdirSync(alice.repo);
  git(alice.repo, 'init', '-q', '-b', 'main');
  writeFileSync(join(alice.repo, 'README.md'), '# app\n');
  assert.is((await runTracer(['init', '--agents', 'claude-code,codex'], { cwd: alice.repo, home: alice.home })).code, 0);
  commit(alice.repo, alice.home, 'base');
  mkdirSync(join(alice.repo, 'src'));
  writeFileSync(join(alice.repo, 'src/parse.ts'), `${PARSE.join('\n')}\n`);
  const claude = { session_id: CLAUDE, transcript_path: transcriptCopy('claude-code/usage.jsonl'), cwd: alice.repo };
  await agentHook(alice.repo, alice.home, 'claude-code', 'PostToolUse', {
    ...claude,
    hook_event_name: 'PostToolUse',
    tool_name: 'Write',
    tool_input: { file_path: join(alice.repo, 'src/parse.ts'), content: `${PARSE.join('\n')}\n` },
  });
  await agentHook(alice.repo, alice.home, 'claude-code', 'Stop', { ...claude, hook_event_name: 'Stop' });
  commit(alice.repo, alice.home, 'parse, by Claude Code', 'Alice');
  assert.is((await runTracer(['remote', 'add', 'origin', url, '--token', tokens.alice], { cwd: alice.repo, home: alice.home })).code, 0);
  assert.is((await runTracer(['push'], { cwd: alice.repo, home: alice.home })).code, 0);

  const bob = { repo: join(tempDir('cost-bob-'), 'repo'), home: join(tempDir('cost-bob-'), 'home') };
  git(alice.repo, 'clone', '-q', alice.repo, bob.repo);
  assert.is((await runTracer(['init', '--agents', 'claude-code,codex'], { cwd: bob.repo, home: bob.home })).code, 0);
  writeFileSync(join(bob.repo, 'src/total.ts'), `${TOTAL.join('\n')}\n`);
  const codex = { session_id: CODEX, transcript_path: transcriptCopy('codex/rollout-usage.jsonl'), cwd: bob.repo, model: 'gpt-5.3-codex' };
  const patch = `apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: src/total.ts\n${TOTAL.map((line) => `+${line}`).join('\n')}\n*** End Patch\nEOF\n`;
  await agentHook(bob.repo, bob.home, 'codex', 'PostToolUse', {
    ...codex,
    turn_id: 't1',
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command: patch },
    tool_response: 'Success.',
  });
  await agentHook(bob.repo, bob.home, 'codex', 'Stop', {
    ...codex,
    turn_id: 't1',
    hook_event_name: 'Stop',
    last_assistant_message: 'Done.',
  });
  commit(bob.repo, bob.home, 'total, by Codex', 'Bob');
  assert.is((await runTracer(['remote', 'add', 'origin', url, '--token', tokens.bob], { cwd: bob.repo, home: bob.home })).code, 0);
  assert.is((await runTracer(['push'], { cwd: bob.repo, home: bob.home })).code, 0);
  return { service, lead, alice };
}

async function signedIn(team: CostTeam) {
  const client = browserlessClient(team.service.url);
  assert.is((await client.signIn(team.lead)).status, 303);
  return client;
}

/** The cost page once every pushed transcript is read (it says how many are left until then). */
async function settledCost(client: Awaited<ReturnType<typeof signedIn>>): Promise<any> {
  for (let attempt = 0; ; attempt += 1) {
    const response = await client.get('/ui/api/p/acme/app/cost');
    assert.is(response.status, 200);
    const cost = (await response.json()) as any;
    if (cost.pending === 0 && cost.totals.requests > 0) return cost;
    if (attempt > 200) throw new Error(`the transcripts were never read: ${JSON.stringify(cost)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const close = (actual: number | null, expected: number, what: string) =>
  assert.ok(actual !== null && Math.abs(actual - expected) < 1e-6, `${what}: $${actual} is $${expected}`);

export function teamCostSuite(backend: 'sqlite' | 'postgres') {
  const test = suite<{ team?: CostTeam }>(`team cost (${backend})`, {});
  test.before(async (context) => {
    context.team = await costTeam(backend);
  });
  test.after(async () => {
    await stopAllServices();
    cleanup();
  });

  test('the cost page: tokens and cost by agent, model, person and day, landed lines against written ones, from SQL', async ({ team }) => {
    const cost = await settledCost(await signedIn(team!));
    assert.equal(cost.prices, ['genai-prices 0.1.8']);
    assert.is(cost.totals.conversations, 2);
    assert.is(cost.totals.requests, 13 + 6);
    assert.equal(cost.totals.tokens, {
      input: 57 + 59525,
      output: 3306 + 1123,
      cache_write: 28933,
      cache_read: 293447 + 238848,
      reasoning: 483,
      cache_write_1h: 0,
    });
    close(cost.totals.cost_usd, CLAUDE_USD + CODEX_USD, 'in all');
    assert.is(cost.totals.written, PARSE.length + TOTAL.length);
    assert.is(cost.totals.landed, PARSE.length + TOTAL.length);
    const row = (rows: any[], key: string) => rows.find((entry) => entry.key === key);
    close(row(cost.by_agent, 'claude-code').cost_usd, CLAUDE_USD, 'claude-code');
    close(row(cost.by_agent, 'codex').cost_usd, CODEX_USD, 'codex');
    assert.equal([row(cost.by_agent, 'claude-code').landed, row(cost.by_agent, 'claude-code').written], [PARSE.length, PARSE.length]);
    assert.equal([row(cost.by_agent, 'codex').landed, row(cost.by_agent, 'codex').written], [TOTAL.length, TOTAL.length]);
    close(row(cost.by_model, 'anthropic/claude-sonnet-4-20250514').cost_usd, CLAUDE_USD, 'the Claude model');
    close(row(cost.by_model, 'openai/gpt-5.3-codex').cost_usd, CODEX_USD, 'the Codex model');
    close(row(cost.by_person, 'alice').cost_usd, CLAUDE_USD, 'alice');
    close(row(cost.by_person, 'bob').cost_usd, CODEX_USD, 'bob');
    // Cost over time, by the day of each request.
    close(row(cost.by_day, '2025-09-11').cost_usd, CLAUDE_USD, 'the Claude session’s day');
    close(row(cost.by_day, '2026-02-23').cost_usd, CODEX_USD, 'the Codex session’s day');
  });

  test('the session page: tokens and cost turn by turn, the same from SQL as the local viewer reads from files', async ({ team }) => {
    const client = await signedIn(team!);
    await settledCost(client);
    const teamUsage = (await (await client.get(`/ui/api/p/acme/app/sessions/${CLAUDE}/usage`)).json()) as any;
    assert.is(teamUsage.usage, 'known');
    assert.equal(teamUsage.tokens, CLAUDE_TOKENS);
    close(teamUsage.cost_usd, CLAUDE_USD, 'the session');
    assert.equal(
      teamUsage.turns.map((turn: any) => [turn.turn, turn.requests, turn.models]),
      [[1, 13, ['claude-sonnet-4-20250514']]],
    );
    const codexUsage = (await (await client.get(`/ui/api/p/acme/app/sessions/${CODEX}/usage`)).json()) as any;
    assert.equal(codexUsage.tokens, CODEX_TOKENS);
    assert.equal(
      codexUsage.turns.map((turn: any) => [turn.turn, turn.requests]),
      [[3, 6]],
      'the rollout’s first two turns made no request',
    );
    assert.is((await client.get('/ui/api/p/acme/app/sessions/no-such-session/usage')).status, 404);

    const viewer = await startViewerProcess({ home: team!.alice.home, cwd: team!.alice.repo });
    try {
      const cookie = await login(viewer);
      const list = JSON.parse((await get(viewer.origin, '/api/projects', { cookie })).body) as Array<{ id: string }>;
      const local = JSON.parse((await get(viewer.origin, `/api/p/${list[0]!.id}/sessions/${CLAUDE}/usage`, { cookie })).body);
      assert.equal(local, teamUsage, 'the local viewer and the team view say the same');

      const headless = await launchSignedIn(viewer.url);
      try {
        const page = await headless.context.newPage();
        await page.goto(`${viewer.origin}/p/${list[0]!.id}/sessions/${CLAUDE}`);
        await page.locator('#usage-turns tbody tr').first().waitFor();
        assert.match(
          (await page.locator('#usage-totals').textContent()) ?? '',
          new RegExp(`\\$${CLAUDE_USD.toFixed(4).replace('.', '\\.')}`),
        );
        assert.is(await page.locator('#usage-turns tbody tr').count(), 1);
        assert.equal(headless.cspViolations, []);
      } finally {
        await headless.close();
      }
    } finally {
      await viewer.stop();
    }
  });

  test('the team project page draws the cost section', async ({ team }) => {
    await settledCost(await signedIn(team!));
    const headless = await launchBrowser();
    try {
      const page = await headless.context.newPage();
      await page.goto(`${team!.service.url}/ui/sign-in`);
      await page.fill('input[name=token]', team!.lead);
      await Promise.all([page.waitForURL(`${team!.service.url}/ui/`), page.click('button[type=submit]')]);
      await page.goto(`${team!.service.url}/ui/p/acme/app`);
      await page.locator('#cost-agent tr').first().waitFor();
      assert.match(
        (await page.locator('#cost-totals').textContent()) ?? '',
        new RegExp(`\\$${(CLAUDE_USD + CODEX_USD).toFixed(4).replace('.', '\\.')}`),
      );
      assert.equal(await page.locator('#cost-agent tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-key'))), [
        'claude-code',
        'codex',
      ]);
      assert.is(await page.locator('#cost-person tr').count(), 2);
      assert.equal(headless.cspViolations, []);
    } finally {
      await headless.close();
    }
  });

  return test;
}
