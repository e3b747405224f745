import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { UsageRecord, UsageReport } from '../../src/core/transcript.js';
import { bufferSource, fileSource } from '../../src/transcript/source.js';
import { readUsage, sumTokens } from '../../src/transcript/usage.js';
import { cleanup, tempDir } from '../helpers/cli.js';
import { formatOf } from '../helpers/transcripts.js';

// Issue 33, item 1: usage per request, read by each agent's own reader from
// real transcripts (test/fixtures/README.md says where each was captured).
// Every expected figure below was counted by hand from the fixture, line by
// line, as the comments show; none comes from tracer's code.
const AGENTS = fileURLToPath(new URL('../fixtures/agents/', import.meta.url));

async function usageOf(agent: string, file: string): Promise<Extract<UsageReport, { usage: 'known' }>> {
  const source = await fileSource(join(AGENTS, agent, file));
  if (!source) throw new Error(`no fixture ${file}`);
  const report = await readUsage(source, await formatOf(agent));
  if (report.usage !== 'known') throw new Error(`${agent}: usage unknown (${report.reason})`);
  assert.equal(report.refused, [], `${agent} ${file}: nothing refused`);
  return report;
}

function byModel(records: UsageRecord[]): Record<string, ReturnType<typeof sumTokens>> {
  const models = [...new Set(records.map((record) => record.model ?? '?'))];
  return Object.fromEntries(models.map((model) => [model, sumTokens(records.filter((record) => (record.model ?? '?') === model))]));
}

test("Claude Code 1.0.111 (a real session with prompt caching): each message counted once, its last line's usage, cache writes and reads apart", async () => {
  // message id (lines)        input  output  cache write  cache read
  // msg_01CGPMn2… (2, 3)          4      91       10361        4802
  // msg_013y1Hj… (5)              7      61         605       15163
  // msg_012BNp8… (7, 8)           7      88        3368       15768
  // msg_01MoVBC… (10, 11)         7     210        2556       19136
  // msg_01RKeFt… (13, 14)         7     257        1611       21692
  // msg_01FVqx8… (16, 17)         6    1237         550       23303
  // msg_01RCnHu… (19, 20)         5     119        1440       23853
  // msg_01WABsk… (22)             4      77         360       25293
  // msg_01Ee2D8… (24, 25)         3     331         592       25653
  // msg_013UuaH… (27, 28)         2      97         635       26245
  // msg_013iK4e… (30, 31)         2     352        5647       26880
  // msg_01Kdh9J… (33)             2     299         605       32527
  // msg_01B8PBo… (35, 36)         1      87         603       33132
  // sum, 13 requests             57    3306       28933      293447
  const report = await usageOf('claude-code', 'usage.jsonl');
  assert.is(report.records.length, 13);
  assert.equal(report.totals, { input: 57, output: 3306, cacheWrite: 28933, cacheRead: 293447, reasoning: 0, cacheWrite1h: 0 });
  assert.equal([...new Set(report.records.map((record) => record.model))], ['claude-sonnet-4-20250514']);
  assert.equal(report.records[0], {
    turn: 1,
    record: 2,
    ts: '2025-09-11T13:28:09.380Z',
    model: 'claude-sonnet-4-20250514',
    tokens: { input: 4, output: 91, cacheWrite: 10361, cacheRead: 4802 },
    scope: 'request',
  });
});

test('Claude Code 2.0.69 with thinking: a message over three lines whose output grows (8, 8, 407) counts 407 once, not 423', async () => {
  // msg_01HZjNL… lines 4, 5, 6: input 10 each, output 8 → 8 → 407, cache write 6890, read 12861
  // msg_015DjLV… lines 9, 10:   input 8 each,  output 1 → 77,       cache write 571,  read 19751
  // A sum of the lines would say input 46, output 501, cache write 22012, cache read 78085.
  const report = await usageOf('claude-code', 'usage-thinking.jsonl');
  assert.is(report.records.length, 2);
  assert.equal(report.totals, { input: 18, output: 484, cacheWrite: 7461, cacheRead: 32612, reasoning: 0, cacheWrite1h: 0 });
  assert.equal(
    report.records.map((record) => record.record),
    [4, 9],
    'each counted where the message began',
  );
});

test('Codex 0.104 (a real rollout): the growth of the running total per request; a repeated token_count adds nothing; cached input taken out of input', async () => {
  // token_count lines with info (each written twice, lines 18/21, 27/30, 36/39, 45/48, 54/57, then 62):
  // last_token_usage    input   cached  output  reasoning
  // line 18            42772     3456     204       124
  // line 27            44218    42880      96        17
  // line 36            48969    44288     245       143
  // line 45            49326    49152     179        81
  // line 54            49647    49408     113        22
  // line 62            63441    49664     286        96
  // sum               298373   238848    1123       483   (= the last total_token_usage, line 62)
  // input without the cache: 298373 - 238848 = 59525
  const report = await usageOf('codex', 'rollout-usage.jsonl');
  assert.is(report.records.length, 6);
  assert.equal(report.totals, { input: 59525, output: 1123, cacheWrite: 0, cacheRead: 238848, reasoning: 483, cacheWrite1h: 0 });
  assert.equal(
    report.records.map((record) => record.record),
    [18, 27, 36, 45, 54, 62],
  );
  assert.ok(report.records.every((record) => record.model === 'gpt-5.3-codex'));
  assert.equal(report.records[1]!.tokens, { input: 44218 - 42880, output: 96, cacheWrite: 0, cacheRead: 42880, reasoning: 17 });
});

test('Gemini CLI (a real JSONL recording, two models): a message written again with the same id counts once; thoughts are output, cached is taken out of input', async () => {
  // gemini message (lines)   model                    input  cached  output  thoughts
  // 52e62e67 (6, 8)          gemini-3-flash-preview   13906       0     185       306
  // a4173396 (9, 11)         gemini-3-flash-preview   29082    8156      89       642
  // cda8a342 (12, 14)        gemini-3-flash-preview   38324       0    1172       232
  // edf94f05 (15, 17)        gemini-3-flash-preview   40914   32637     351       161
  // 0752be32 (20)            gemini-3-flash-preview   40122    8158      89       348
  // 42a121a5 (24, 26)        gemini-3.1-pro-preview   40238       0     266       452
  // flash: input 162348 - 48951 cached = 113397, output 1886 + 1689 thoughts = 3575
  // pro:   input 40238, output 266 + 452 = 718
  const report = await usageOf('gemini', 'session-usage.jsonl');
  assert.is(report.records.length, 6);
  assert.equal(report.totals, { input: 153635, output: 4293, cacheWrite: 0, cacheRead: 48951, reasoning: 2141, cacheWrite1h: 0 });
  assert.equal(byModel(report.records), {
    'gemini-3-flash-preview': { input: 113397, output: 3575, cacheWrite: 0, cacheRead: 48951, reasoning: 1689, cacheWrite1h: 0 },
    'gemini-3.1-pro-preview': { input: 40238, output: 718, cacheWrite: 0, cacheRead: 0, reasoning: 452, cacheWrite1h: 0 },
  });
  // "System: Please continue." (line 18) is Gemini's own, not a prompt: the pro request is in the person's second turn.
  assert.equal(
    report.records.map((record) => record.turn),
    [1, 1, 1, 1, 1, 2],
  );
});

test("Copilot CLI 1.0.34 (a real session): the shutdown's totals per model, cache reads taken out of input, as a session's, not a turn's", async () => {
  // session.shutdown (line 55), modelMetrics.claude-sonnet-4.6.usage:
  // inputTokens 186809 (cache reads 151738, writes 0 inside), outputTokens 2848, reasoningTokens 1024.
  // The second user.message (line 48) has empty content: Copilot's own nudge, no prompt, so one turn.
  const report = await usageOf('copilot', 'events-usage.jsonl');
  assert.equal(report.records, [
    {
      turn: 1,
      record: 55,
      ts: report.records[0]!.ts,
      model: 'claude-sonnet-4.6',
      tokens: { input: 186809 - 151738, output: 2848, cacheWrite: 0, cacheRead: 151738, reasoning: 1024 },
      scope: 'session',
    },
  ]);
});

test('Cline (a real task, ui_messages.json: one JSON array on one line): every finished api_req_started, read element by element', async () => {
  // 36 api_req_started messages, all with tokens, all claude-opus-4-5-20251101;
  // tokensIn sum 360, tokensOut 30169, cacheWrites 128708, cacheReads 1280342
  // (the first three: 10/814/8972/0, 10/572/3454/8972, 10/369/983/12426).
  const report = await usageOf('cline', 'ui_messages.json');
  assert.is(report.records.length, 36);
  assert.equal(report.totals, { input: 360, output: 30169, cacheWrite: 128708, cacheRead: 1280342, reasoning: 0, cacheWrite1h: 0 });
  assert.equal(
    report.records.slice(0, 3).map((record) => record.tokens),
    [
      { input: 10, output: 814, cacheWrite: 8972, cacheRead: 0 },
      { input: 10, output: 572, cacheWrite: 3454, cacheRead: 8972 },
      { input: 10, output: 369, cacheWrite: 983, cacheRead: 12426 },
    ],
  );
  assert.ok(report.records.every((record) => record.model === 'claude-opus-4-5-20251101'));
});

test('agents whose transcripts hold no token counts say usage unknown, with the reason, never zero', async () => {
  for (const agent of ['cursor', 'droid', 'windsurf', 'kiro']) {
    const source = await fileSource(join(AGENTS, 'claude-code', 'transcript.jsonl'));
    const report = await readUsage(source!, await formatOf(agent));
    assert.is(report.usage, 'unknown', agent);
    assert.ok(report.usage === 'unknown' && report.reason.length > 10, `${agent} says why`);
  }
});

test('a Claude Code transcript whose usage was stripped (the older fixture): every assistant message refused as malformed, the usage unknown, never zero', async () => {
  const source = await fileSource(join(AGENTS, 'claude-code', 'transcript.jsonl'));
  const report = await readUsage(source!, await formatOf('claude-code'));
  assert.ok(report.usage === 'unknown', 'none of it counted: unknown, not $0 of known usage');
  if (report.usage !== 'unknown') return;
  assert.match(report.reason, /^None of its \d+ usage records could be counted \(usage_malformed: /);
});

test('bytes in memory are read without a promise per record, and give exactly what the streamed file gives', async () => {
  const files = [
    ['claude-code', 'usage.jsonl'],
    ['claude-code', 'usage-thinking.jsonl'],
    ['codex', 'rollout-usage.jsonl'],
    ['gemini', 'session-usage.jsonl'],
    ['copilot', 'events-usage.jsonl'],
    ['cline', 'ui_messages.json'],
  ] as const;
  for (const [agent, file] of files) {
    const format = await formatOf(agent);
    const path = join(AGENTS, agent, file);
    const streamed = await readUsage((await fileSource(path))!, format);
    const inMemory = await readUsage(bufferSource(readFileSync(path)), format);
    assert.equal(inMemory, streamed, `${agent} ${file}`);
  }
  // A torn last line and a blank one, in memory as in a file.
  const claude = readFileSync(join(AGENTS, 'claude-code', 'usage.jsonl'), 'utf8');
  const torn = `${claude}\n\n{"type":"assistant","message":{"id":"x","usage":{"input_tok`;
  const format = await formatOf('claude-code');
  const path = join(tempDir('usage-torn-'), 'torn.jsonl');
  writeFileSync(path, torn);
  assert.equal(await readUsage(bufferSource(torn), format), await readUsage((await fileSource(path))!, format));
});

test.after(cleanup);
test.run();
