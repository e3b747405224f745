import { randomBytes } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TranscriptItem } from '../../src/core/transcript.js';
import { builtinAgents } from '../../src/transcript/agents.js';
import { readItems, readWindow, turnStarts } from '../../src/transcript/read.js';
import { readRawRecords } from '../../src/transcript/records.js';
import { bufferSource } from '../../src/transcript/source.js';
import { readUsage } from '../../src/transcript/usage.js';
import { transcriptPage } from '../../src/viewer/transcript-page.js';
import { formatOf } from '../helpers/transcripts.js';

// Issue 32 and 33, "Must hold": a hostile transcript (torn, huge, binary, of
// the wrong types, with negative or absurd token counts) is read as far as it
// can be, what cannot be read is skipped or refused with a code, and nothing
// is counted that should not be, for every agent's reader.

const line = (value: unknown) => JSON.stringify(value);
const claudeUser = (text: string) => line({ type: 'user', message: { role: 'user', content: text }, timestamp: '2026-01-01T00:00:00Z' });
const claudeAssistant = (id: string, usage: unknown, model: unknown = 'claude-sonnet-4-5') =>
  line({ type: 'assistant', message: { id, model, role: 'assistant', content: [{ type: 'text', text: `reply ${id}` }], usage } });

async function items(agent: string, text: string | Buffer): Promise<TranscriptItem[]> {
  const out: TranscriptItem[] = [];
  for await (const item of readItems(bufferSource(text), await formatOf(agent))) out.push(item);
  return out;
}

test('torn lines, in the middle and at the end, are skipped and counted; the lines around them are read', async () => {
  const text = [claudeUser('one'), '{"type":"user","mess', claudeUser('two'), '{"type":"assistant","message":{"id":"m'].join('\n');
  const source = bufferSource(text);
  const window = await readWindow(source, await formatOf('claude-code'));
  assert.equal(
    window.items.map((item) => item.kind === 'message' && item.text),
    ['one', 'two'],
  );
  assert.is(window.skipped, 2);
  assert.is(window.next, null);
  assert.equal(
    window.items.map((item) => [item.turn, item.record]),
    [
      [1, 1],
      [2, 3],
    ],
  );
});

test('a line over the 32 MB cap is skipped without being held whole; the records after it are read', async () => {
  const huge = line({ type: 'user', message: { role: 'user', content: 'x'.repeat(33 * 1024 * 1024) } });
  const text = [claudeUser('before'), huge, claudeUser('after')].join('\n');
  const window = await readWindow(bufferSource(text), await formatOf('claude-code'));
  assert.equal(
    window.items.map((item) => item.kind === 'message' && item.text),
    ['before', 'after'],
  );
  assert.is(window.skipped, 1);
  assert.equal(
    window.items.map((item) => item.record),
    [1, 3],
    'the skipped line keeps its number',
  );
});

test('a long text under the cap comes clipped to 100,000 characters and says so', async () => {
  const [item] = await items('claude-code', claudeUser('y'.repeat(150_000)));
  assert.ok(item?.kind === 'message' && item.text.length === 100_000 && item.truncated === true);
});

test('an element over the cap in a one-line JSON array (Cline) is skipped; the array is still read to its end', async () => {
  const elements = [
    { ts: 1, type: 'say', say: 'text', text: 'first prompt', images: [] },
    { ts: 2, type: 'say', say: 'text', text: 'z'.repeat(5000) },
    { ts: 3, type: 'say', say: 'completion_result', text: 'done' },
  ];
  const records = [];
  for await (const record of readRawRecords(bufferSource(JSON.stringify(elements)), { offset: 0, record: 0 }, { maxRecordBytes: 1000 }))
    records.push(record);
  assert.equal(
    records.map((record) => [record.record, record.problem ?? 'ok']),
    [
      [1, 'ok'],
      [2, 'too_long'],
      [3, 'ok'],
    ],
  );
});

test('a JSON array torn part-way, or with garbage after some elements, gives the elements before the damage and counts the rest as skipped', async () => {
  const good = [
    { ts: 1, type: 'say', say: 'text', text: 'first prompt', images: [] },
    { ts: 2, type: 'say', say: 'text', text: 'an answer' },
  ];
  const whole = JSON.stringify(good);
  for (const damaged of [
    whole.slice(0, whole.length - 10),
    `${whole.slice(0, -1)}, @@@ not json ]`,
    `${whole.slice(0, -1)},{"ts":3,"type":"say","te`,
  ]) {
    const window = await readWindow(bufferSource(damaged), await formatOf('cline'));
    assert.ok(window.items.length >= 1 && window.items.length <= 2, damaged.slice(-30));
    assert.ok(window.items[0]!.kind === 'message' && window.items[0]!.role === 'person');
    assert.is(window.next, null);
  }
});

test('binary bytes, NULs and invalid UTF-8 give no items and no failure, whatever the agent', async () => {
  const garbage = Buffer.concat([randomBytes(256 * 1024), Buffer.from('\n\0\0\0\n\xff\xfe\n'), randomBytes(64 * 1024)]);
  for (const agent of builtinAgents()) {
    const format = await formatOf(agent);
    const window = await readWindow(bufferSource(garbage), format);
    assert.ok(Array.isArray(window.items), agent);
    assert.ok(window.skipped >= 0);
    const usage = await readUsage(bufferSource(garbage), format);
    if (usage.usage === 'known') assert.equal(usage.records, [], agent);
    assert.ok((await turnStarts(bufferSource(garbage), format)).length >= 1);
  }
});

test('records of the wrong types (strings for objects, numbers for text, arrays for content) never fail a read, for every agent', async () => {
  const hostile = [
    null,
    42,
    '"a string"',
    [],
    { type: 'user', message: 42 },
    { type: 'assistant', message: { content: { not: 'an array' }, usage: 'lots' } },
    { type: 'response_item', payload: { type: 'message', role: 'user', content: 7 } },
    { type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: 'many', last_token_usage: [1, 2] } } },
    { type: 'gemini', id: {}, content: { deep: { deeper: [null] } }, toolCalls: 'none', tokens: [] },
    { type: 'user.message', data: { content: { x: 1 } } },
    { type: 'assistant.message', data: { toolRequests: [null, 3, { arguments: '{not json' }] } },
    { ts: 'yesterday', type: 'say', say: 'tool', text: '{"tool":' },
    { ts: 1, type: 'say', say: 'api_req_started', text: '{"tokensIn":"ten","tokensOut":null}' },
    { info: 'x', parts: 'y' },
    { info: { role: 'assistant', tokens: { input: {}, output: [], cache: 'z' } }, parts: [null, { type: 'tool', state: 5 }] },
    { kind: 'Prompt', data: { content: [{ kind: 'text', data: 5 }, null] } },
    { role: 'user', created: 'then', content: [{ type: 'toolRequest', toolCall: 'x' }] },
    { type: 'code_action', status: 'done', code_action: { path: 42 } },
    { type: 'message', message: { role: 'assistant', content: [{ type: 'tool_use', name: 'ApplyPatch', input: 5 }] } },
    {
      type: 'assistant',
      message: { role: 'model', parts: [{ functionCall: 'x' }, { text: 5 }] },
      usageMetadata: { promptTokenCount: '9' },
    },
    { role: 'assistant', message: { content: [{ type: 'tool_use', name: 'Write', input: { path: 3, contents: [] } }] } },
    JSON.parse('[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]'),
  ];
  const text = hostile.map((value) => (typeof value === 'string' ? value : line(value))).join('\n');
  for (const agent of builtinAgents()) {
    const format = await formatOf(agent);
    const window = await readWindow(bufferSource(text), format);
    for (const item of window.items) {
      assert.type(item.turn, 'number');
      if ('text' in item) assert.type(item.text, 'string', `${agent}: text is text`);
      if (item.kind === 'tool_call')
        assert.ok(
          item.files.every((file) => typeof file === 'string'),
          `${agent}: files are paths`,
        );
    }
    const usage = await readUsage(bufferSource(text), format);
    if (usage.usage === 'known') {
      for (const record of usage.records)
        for (const count of Object.values(record.tokens))
          assert.ok(Number.isInteger(count) && count >= 0, `${agent}: ${JSON.stringify(record)}`);
      assert.ok(usage.refused.every((refusal) => /^usage_[a-z]+$/.test(refusal.code)));
    }
  }
});

test('negative, fractional, absurd or missing token counts are refused with their code and left out of every sum', async () => {
  const text = [
    claudeUser('go'),
    claudeAssistant('ok', { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 100, cache_read_input_tokens: 1000 }),
    claudeAssistant('negative', { input_tokens: -3, output_tokens: 5 }),
    claudeAssistant('fraction', { input_tokens: 1.5, output_tokens: 5 }),
    claudeAssistant('absurd', { input_tokens: 10, output_tokens: 9e15 }),
    claudeAssistant('text', { input_tokens: '10', output_tokens: 5 }),
    claudeAssistant('missing', { cache_read_input_tokens: 10 }),
    claudeAssistant('none', undefined),
  ].join('\n');
  const report = await readUsage(bufferSource(text), await formatOf('claude-code'));
  assert.ok(report.usage === 'known');
  if (report.usage !== 'known') return;
  assert.equal(report.totals, { input: 10, output: 5, cacheWrite: 100, cacheRead: 1000, reasoning: 0, cacheWrite1h: 0 });
  assert.equal(
    report.refused.map((refusal) => [refusal.record, refusal.code]),
    [
      [3, 'usage_negative'],
      [4, 'usage_malformed'],
      [5, 'usage_absurd'],
      [6, 'usage_malformed'],
      [7, 'usage_malformed'],
      [8, 'usage_malformed'],
    ],
  );
  assert.ok(report.refused.every((refusal) => refusal.message.endsWith('.') && refusal.message.length < 200));
});

test("a model name that is no model name is dropped (its usage still counts, its cost unknown); Claude Code's made-up messages are no request", async () => {
  const text = [
    claudeUser('go'),
    claudeAssistant('weird', { input_tokens: 1, output_tokens: 2 }, 'bad\u0000model\nname'),
    claudeAssistant('long', { input_tokens: 1, output_tokens: 2 }, 'm'.repeat(400)),
    claudeAssistant('synthetic', { input_tokens: 0, output_tokens: 0 }, '<synthetic>'),
  ].join('\n');
  const report = await readUsage(bufferSource(text), await formatOf('claude-code'));
  assert.ok(report.usage === 'known' && report.records.length === 2);
  if (report.usage !== 'known') return;
  assert.ok(report.records.every((record) => record.model === undefined));
  const shown = await items('claude-code', text);
  assert.ok(
    shown
      .filter((item) => item.kind === 'message' && item.role === 'assistant')
      .every((item) => !('model' in item) || item.model === undefined),
  );
});

test('Codex: cached input above the input, and a running total that starts over, are refused or started afresh, never negative', async () => {
  const count = (total: unknown, last: unknown) =>
    line({ type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: total, last_token_usage: last } } });
  const text = [
    line({ type: 'turn_context', payload: { model: 'gpt-5' } }),
    count(
      { input_tokens: 100, cached_input_tokens: 40, output_tokens: 10 },
      { input_tokens: 100, cached_input_tokens: 40, output_tokens: 10 },
    ),
    count(
      { input_tokens: 100, cached_input_tokens: 40, output_tokens: 10 },
      { input_tokens: 100, cached_input_tokens: 40, output_tokens: 10 },
    ),
    count({ input_tokens: 30, cached_input_tokens: 0, output_tokens: 3 }, { input_tokens: 30, cached_input_tokens: 0, output_tokens: 3 }),
    count({ input_tokens: 50, cached_input_tokens: 90, output_tokens: 4 }, { input_tokens: 20, cached_input_tokens: 90, output_tokens: 1 }),
  ].join('\n');
  const report = await readUsage(bufferSource(text), await formatOf('codex'));
  assert.ok(report.usage === 'known');
  if (report.usage !== 'known') return;
  // 100/40/10 once (its repeat adds nothing), then a total that went down: its own request, 30/0/3.
  assert.equal(report.totals, { input: 60 + 30, output: 13, cacheWrite: 0, cacheRead: 40, reasoning: 0, cacheWrite1h: 0 });
  assert.equal(
    report.refused.map((refusal) => refusal.code),
    ['usage_negative'],
  );
});

test('a page cursor that is not one of this transcript is refused with bad_cursor, not read from', async () => {
  const source = bufferSource([claudeUser('a'), claudeUser('b')].join('\n'));
  const format = await formatOf('claude-code');
  for (const cursor of [
    '999999999.1.0.0.l',
    '../../etc',
    '1.1.1.1.x',
    '0.0.0.0.l.m%%%',
    '0.0.0.0.l.s' + Buffer.from('{not json').toString('base64url'),
    'x'.repeat(5000),
  ]) {
    try {
      await transcriptPage(source, format, cursor, 10);
      assert.unreachable(cursor);
    } catch (error) {
      assert.is((error as { code?: string }).code, 'bad_cursor', cursor);
    }
  }
});

test.run();
