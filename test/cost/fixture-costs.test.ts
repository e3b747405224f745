import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { calcPrice } from '@pydantic/genai-prices';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { conversationCosts } from '../../src/cost/conversation-cost.js';
import { loadPriceTable } from '../../src/cost/prices.js';
import type { ConversationTraces } from '../../src/cost/trace-summary.js';
import { USAGE_CACHE_FILE, USAGE_READ_VERSION } from '../../src/cost/usage-cache.js';
import { cleanup, tempDir } from '../helpers/cli.js';

// Issue 33, "Must hold": on real transcripts of Claude Code (with cache tokens),
// Codex and Gemini, the token sums equal a hand count of the fixture, and the
// cost equals the price table's figures. The expected costs are computed here,
// from the per-million-token prices the providers publish (checked against the
// table's own entries below), times the tokens counted by hand in
// test/transcript/usage-fixtures.test.ts; nothing comes from tracer's code.
test.after(cleanup);

const AGENTS = fileURLToPath(new URL('../fixtures/agents/', import.meta.url));

/** Dollars per million tokens, as the providers' price pages give them (and the table, asserted below). */
const PUBLISHED = {
  // anthropic.com/pricing, Claude Sonnet 4: input $3, 5-minute cache writes $3.75, cache hits $0.30, output $15.
  'claude-sonnet-4-20250514': { input: 3, cacheWrite: 3.75, cacheRead: 0.3, output: 15 },
  // OpenAI's API pricing, gpt-5.3-codex: input $1.75, cached input $0.175, output $14.
  'gpt-5.3-codex': { input: 1.75, cacheWrite: null, cacheRead: 0.175, output: 14 },
  // Google's Gemini API pricing, Gemini 3 Flash Preview: input $0.50, context caching $0.05, output $3.
  'gemini-3-flash-preview': { input: 0.5, cacheWrite: null, cacheRead: 0.05, output: 3 },
  // Gemini 3.1 Pro Preview, prompts up to 200k tokens: input $2, context caching $0.20, output $12.
  'gemini-3.1-pro-preview': { input: 2, cacheWrite: null, cacheRead: 0.2, output: 12 },
} as const;

type Hand = { input: number; output: number; cacheWrite: number; cacheRead: number };

/** The hand counts of test/transcript/usage-fixtures.test.ts (output includes reasoning). */
const HAND: Record<string, Record<string, Hand>> = {
  'claude-code': { 'claude-sonnet-4-20250514': { input: 57, output: 3306, cacheWrite: 28933, cacheRead: 293447 } },
  codex: { 'gpt-5.3-codex': { input: 59525, output: 1123, cacheWrite: 0, cacheRead: 238848 } },
  gemini: {
    'gemini-3-flash-preview': { input: 113397, output: 3575, cacheWrite: 0, cacheRead: 48951 },
    'gemini-3.1-pro-preview': { input: 40238, output: 718, cacheWrite: 0, cacheRead: 0 },
  },
};

const FILES = { 'claude-code': 'claude-code/usage.jsonl', codex: 'codex/rollout-usage.jsonl', gemini: 'gemini/session-usage.jsonl' };
/** When each fixture's requests were made: the table's entry of that date is the one that applies. */
const DATES = { 'claude-code': '2025-09-11', codex: '2026-02-23', gemini: '2026-04-01' };

function expectedUsd(model: keyof typeof PUBLISHED, tokens: Hand): number {
  const price = PUBLISHED[model];
  return (
    (tokens.input * price.input +
      tokens.output * price.output +
      tokens.cacheWrite * (price.cacheWrite ?? 0) +
      tokens.cacheRead * price.cacheRead) /
    1e6
  );
}

/** A project folder holding each fixture as a conversation's snapshot, as the hooks store it. */
function projectWithSnapshots(): string {
  const dir = join(tempDir('tracer-cost-'), 'project');
  const index: Record<string, string> = {};
  for (const [agent, file] of Object.entries(FILES)) {
    const bytes = readFileSync(join(AGENTS, file));
    const sha = createHash('sha256').update(bytes).digest('hex');
    mkdirSync(join(dir, 'conversations', sha.slice(0, 2)), { recursive: true });
    writeFileSync(join(dir, 'conversations', sha.slice(0, 2), sha), bytes);
    index[`${agent}-session`] = sha;
  }
  writeFileSync(join(dir, 'conversations', '_index.json'), JSON.stringify(index));
  return dir;
}

function traces(agent: string): ConversationTraces {
  return {
    agent,
    first_ts: '2026-01-01T00:00:00Z',
    last_ts: '2026-01-01T00:00:00Z',
    traces: 1,
    written: 0,
    written_by_model: {},
    reported: [],
  };
}

test("the table's entries for these models are the prices the providers publish", () => {
  for (const [agent, models] of Object.entries(HAND))
    for (const model of Object.keys(models) as Array<keyof typeof PUBLISHED>) {
      const entry = calcPrice({ input_tokens: 1, output_tokens: 1 }, model, { timestamp: new Date(DATES[agent as keyof typeof DATES]) });
      assert.ok(entry, `the table knows ${model}`);
      const base = (price: unknown) => (typeof price === 'object' && price !== null ? (price as { base: number }).base : price);
      const published = PUBLISHED[model];
      assert.is(base(entry!.model_price.input_mtok), published.input, `${model} input`);
      assert.is(base(entry!.model_price.output_mtok), published.output, `${model} output`);
      assert.is(base(entry!.model_price.cache_read_mtok), published.cacheRead, `${model} cache read`);
      if (published.cacheWrite !== null) assert.is(base(entry!.model_price.cache_write_mtok), published.cacheWrite, `${model} cache write`);
    }
});

test('Claude Code, Codex and Gemini transcripts: tokens per model as counted by hand, cost as the published prices give it', async () => {
  const projectDir = projectWithSnapshots();
  const home = join(tempDir('tracer-cost-home-'), 'home');
  const prices = await loadPriceTable(home);
  assert.match(prices.version, /^genai-prices 0\.1\.8$/, 'the pinned table names its version');
  const conversations = new Map(Object.keys(FILES).map((agent) => [`${agent}-session`, traces(agent)]));
  const costs = await conversationCosts({ projectDir, context: { home, cwd: projectDir, env: {} }, prices, conversations });
  for (const [agent, models] of Object.entries(HAND)) {
    const cost = costs.get(`${agent}-session`)!;
    assert.is(cost.usage, 'known', agent);
    assert.is(cost.cost_known, true, `${agent}: every request priced`);
    let total = 0;
    for (const [model, hand] of Object.entries(models)) {
      const found = cost.models.find((entry) => entry.model === model);
      assert.ok(found, `${agent} used ${model}`);
      const { input, output, cacheWrite, cacheRead } = found!.tokens;
      assert.equal({ input, output, cacheWrite, cacheRead }, hand, `${agent} ${model}: the hand count`);
      const expected = expectedUsd(model as keyof typeof PUBLISHED, hand);
      assert.ok(Math.abs(found!.usd - expected) < 1e-9, `${agent} ${model}: $${found!.usd} is $${expected}`);
      total += expected;
    }
    assert.ok(Math.abs(cost.usd! - total) < 1e-9, `${agent}: $${cost.usd} in all is $${total}`);
  }
  // The figures as a reader would check them: Claude Code $0.24629385, Codex $0.16168915, Gemini $0.06987105 + $0.089092.
  assert.ok(Math.abs(costs.get('claude-code-session')!.usd! - 0.24629385) < 1e-9);
  assert.ok(Math.abs(costs.get('codex-session')!.usd! - 0.16168915) < 1e-9);
  assert.ok(Math.abs(costs.get('gemini-session')!.usd! - (0.06987105 + 0.089092)) < 1e-9);
});

test('a snapshot is read once: its usage comes from the cache afterwards, even if its bytes were changed behind tracer', async () => {
  const projectDir = projectWithSnapshots();
  const home = join(tempDir('tracer-cost-home-'), 'home');
  const prices = await loadPriceTable(home);
  const conversations = new Map([['claude-code-session', traces('claude-code')]]);
  const context = { home, cwd: projectDir, env: {} };
  let read = 0;
  const first = await conversationCosts({ projectDir, context, prices, conversations, onRead: (count) => (read += count) });
  assert.is(read, 1);
  assert.ok(readFileSync(join(projectDir, USAGE_CACHE_FILE), 'utf8').includes(`"v":${USAGE_READ_VERSION}`), 'the usage is kept');
  // A snapshot's name is its bytes' SHA-256: bytes changed under that name are never read again.
  const sha = JSON.parse(readFileSync(join(projectDir, 'conversations', '_index.json'), 'utf8'))['claude-code-session'];
  writeFileSync(join(projectDir, 'conversations', sha.slice(0, 2), sha), '{"not": "the same"}\n');
  const second = await conversationCosts({ projectDir, context, prices, conversations, onRead: (count) => (read += count) });
  assert.is(read, 1, 'nothing read the second time');
  assert.equal(second.get('claude-code-session'), first.get('claude-code-session'));
});

test('many first reads go to worker threads and give what one thread gives; a snapshot whose bytes are gone is missing, not zero', async () => {
  const projectDir = projectWithSnapshots();
  const home = join(tempDir('tracer-cost-home-'), 'home');
  const prices = await loadPriceTable(home);
  const context = { home, cwd: projectDir, env: {} };
  // 45 conversations: each fixture 15 times, each copy's bytes made its own by a line no reader counts.
  const index = JSON.parse(readFileSync(join(projectDir, 'conversations', '_index.json'), 'utf8')) as Record<string, string>;
  const conversations = new Map<string, ConversationTraces>();
  for (const [agent, file] of Object.entries(FILES))
    for (let copy = 0; copy < 15; copy += 1) {
      const bytes = Buffer.concat([readFileSync(join(AGENTS, file)), Buffer.from(`{"copy": ${copy}}\n`)]);
      const sha = createHash('sha256').update(bytes).digest('hex');
      mkdirSync(join(projectDir, 'conversations', sha.slice(0, 2)), { recursive: true });
      writeFileSync(join(projectDir, 'conversations', sha.slice(0, 2), sha), bytes);
      index[`${agent}-${copy}`] = sha;
      conversations.set(`${agent}-${copy}`, traces(agent));
    }
  index['gone'] = 'f'.repeat(64);
  conversations.set('gone', traces('claude-code'));
  writeFileSync(join(projectDir, 'conversations', '_index.json'), JSON.stringify(index));
  let read = 0;
  const costs = await conversationCosts({ projectDir, context, prices, conversations, onRead: (count) => (read = count) });
  assert.is(read, 46, 'above WORKERS_FROM: read by the workers');
  const single = await conversationCosts({
    projectDir,
    context,
    prices,
    conversations: new Map([...Object.keys(FILES)].map((agent) => [`${agent}-session`, traces(agent)])),
  });
  for (const agent of Object.keys(FILES))
    for (let copy = 0; copy < 15; copy += 1) {
      const many = costs.get(`${agent}-${copy}`)!;
      const one = single.get(`${agent}-session`)!;
      assert.equal(
        [many.usage, many.requests, many.tokens, many.usd],
        [one.usage, one.requests, one.tokens, one.usd],
        `${agent} copy ${copy}`,
      );
    }
  assert.is(costs.get('gone')!.usage, 'missing');
  assert.is(costs.get('gone')!.usd, null);
});

test.run();
