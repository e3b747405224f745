import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TranscriptFormat, TranscriptItem } from '../../src/core/transcript.js';
import { builtinAgents, recognizeFormat, transcriptFormat } from '../../src/transcript/agents.js';
import { decodeCursor, encodeCursor } from '../../src/transcript/cursor.js';
import { readItems, readWindow, turnStarts } from '../../src/transcript/read.js';
import { bufferSource } from '../../src/transcript/source.js';
import { readTurns } from '../../src/transcript/turns.js';
import { cleanup, tempDir } from '../helpers/cli.js';
import { formatOf } from '../helpers/transcripts.js';

// Issue 32, item 1: every agent's transcript read through the agent's own
// reader, streamed, in windows a cursor chains, each item with a place that
// does not change when the conversation goes on.
test.after(cleanup);

const AGENTS = fileURLToPath(new URL('../fixtures/agents/', import.meta.url));
const fixture = (agent: string, file: string) => readFileSync(join(AGENTS, agent, file));

async function all(bytes: Buffer | string, format: TranscriptFormat): Promise<TranscriptItem[]> {
  const items: TranscriptItem[] = [];
  for await (const item of readItems(bufferSource(bytes), format)) items.push(item);
  return items;
}

/** Every window of `size` items, from cursor to cursor, through the cursor's string form. */
async function paged(bytes: Buffer | string, format: TranscriptFormat, size: number): Promise<{ items: TranscriptItem[]; pages: number }> {
  const source = bufferSource(bytes);
  const items: TranscriptItem[] = [];
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    const window = await readWindow(source, format, { maxItems: size, ...(cursor ? { from: decodeCursor(cursor, source.size) } : {}) });
    items.push(...window.items);
    pages += 1;
    if (!window.next) return { items, pages };
    cursor = encodeCursor(window.next);
  }
}

test('every built-in agent names its reader, found by id without booting the kernel; an id no plugin has finds none', async () => {
  const ids = builtinAgents();
  assert.equal(ids.length, 12);
  for (const id of ids) {
    const format = await transcriptFormat(id);
    assert.ok(format, `${id} has a reader`);
    assert.is(format!.agent, id);
    assert.type(format!.items, 'function');
  }
  assert.is(await transcriptFormat('no-such-agent'), undefined);
  assert.is(await transcriptFormat('../etc'), undefined);
});

test('a plugin agent of $TRACER_HOME/plugins.json brings its own reader, found by id as the hook finds its adapter', async () => {
  const home = tempDir('reader-home-');
  const dir = join(home, 'acme');
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'reader.mjs'),
    `export const acmeTranscript = {
      agent: 'acme',
      items: (record) => (record && typeof record.said === 'string' ? [{ kind: 'message', role: record.who === 'me' ? 'person' : 'assistant', text: record.said }] : []),
      usage: { unknown: 'Acme writes no token counts.' },
    };\n`,
  );
  writeFileSync(
    join(dir, 'plugin.mjs'),
    `const acme = { id: 'acme', title: 'Acme', install: { kind: 'settings', layout: 'grouped', projectFile: '.acme/hooks.json', events: [] },
      normalize: () => { throw new Error('unused'); },
      transcript: () => import('./reader.mjs').then((module) => module.acmeTranscript) };
    export default { name: 'acme', agents: [acme], apply() {} };\n`,
  );
  writeFileSync(join(home, 'plugins.json'), JSON.stringify({ plugins: ['./acme/plugin.mjs'] }));
  const format = await transcriptFormat('acme', { home, cwd: home, env: { ...process.env, TRACER_HOME: home } });
  assert.ok(format);
  const items = await all('{"who":"me","said":"hello"}\n{"who":"acme","said":"hi"}\n', format!);
  assert.equal(
    items.map((item) => [item.kind, 'role' in item && item.role, item.turn, item.step]),
    [
      ['message', 'person', 1, 0],
      ['message', 'assistant', 1, 1],
    ],
  );
  // The service runs no user's plugins: without a context only built-ins are known.
  assert.is(await transcriptFormat('acme'), undefined);
});

for (const [agent, file, size] of [
  ['claude-code', 'usage.jsonl', 7],
  ['codex', 'rollout-usage.jsonl', 5],
  ['gemini', 'session-usage.jsonl', 4],
  ['cline', 'ui_messages.json', 9],
  ['copilot', 'events-usage.jsonl', 6],
] as const) {
  test(`${agent} (${file}): windows chained by their cursors give exactly the whole read, places and all`, async () => {
    const format = await formatOf(agent);
    const whole = await all(fixture(agent, file), format);
    assert.ok(whole.length > size * 2, 'several windows');
    const { items, pages } = await paged(fixture(agent, file), format, size);
    assert.ok(pages > 2);
    assert.equal(items, whole);
  });
}

test('places are stable: a shorter snapshot of the same conversation gives the same items the same turn, step, record and offset', async () => {
  for (const [agent, file] of [
    ['claude-code', 'usage.jsonl'],
    ['codex', 'rollout-usage.jsonl'],
    ['gemini', 'session-usage.jsonl'],
  ] as const) {
    const bytes = fixture(agent, file);
    const format = await formatOf(agent);
    const whole = await all(bytes, format);
    // Cut after the line holding the middle item: what the hook snapshotted at an earlier stop.
    const middle = whole[Math.floor(whole.length / 2)]!;
    const cut = bytes.indexOf(0x0a, middle.offset) + 1;
    const earlier = await all(bytes.subarray(0, cut), format);
    assert.ok(earlier.length > 0 && earlier.length < whole.length);
    assert.equal(earlier, whole.slice(0, earlier.length), agent);
  }
});

test('turns: where each starts is found by a scan that parses only what may open one, and a window by turn holds that turn alone', async () => {
  const bytes = fixture('gemini', 'session-usage.jsonl');
  const format = await formatOf('gemini');
  const whole = await all(bytes, format);
  const source = bufferSource(bytes);
  const starts = await turnStarts(source, format);
  assert.is(starts.length, 3, 'the start, then turns 1 and 2');
  for (let turn = 0; turn < starts.length; turn += 1) {
    const window = await readWindow(source, format, { from: starts[turn]!, untilTurn: turn + 1 });
    assert.equal(
      window.items,
      whole.filter((item) => item.turn === turn),
      `turn ${turn}`,
    );
    assert.is(window.next === null, turn === starts.length - 1);
  }
  // The person's prompt opens its turn, step 0.
  const second = await readWindow(source, format, { from: starts[2]!, maxItems: 1 });
  assert.ok(second.items[0]!.kind === 'message' && second.items[0]!.role === 'person' && second.items[0]!.step === 0);
});

test("Claude Code's tool results are not parsed to look for a prompt, unless a text block rides with them; the turns are the same either way", async () => {
  const format = await formatOf('claude-code');
  const line = (content: unknown) =>
    JSON.stringify({ type: 'user', timestamp: '2025-01-01T00:00:00Z', message: { role: 'user', content } });
  const result = line([{ type: 'tool_result', tool_use_id: 't1', content: 'done' }]);
  const prompt = line('fix the bug');
  const quoted = line('why does "type":"tool_result" appear in my log?');
  const mixed = line([
    { type: 'tool_result', tool_use_id: 't2', content: 'done' },
    { type: 'text', text: 'and now the tests' },
  ]);
  assert.is(format.mayStartTurn!(result), false, 'a tool result alone');
  for (const text of [prompt, quoted, mixed]) assert.is(format.mayStartTurn!(text), true, text);
  // Whether the scan skips parsing or not, the turns are the prompts.
  const transcript = [prompt, result, quoted, result, mixed].join('\n');
  const starts = await turnStarts(bufferSource(transcript), format);
  // The start of the transcript, then the records (0-based) of the three prompts.
  assert.equal(
    starts.map((start) => start.record),
    [0, 0, 2, 4],
  );
});

test('a window by turn (as tracer mcp asks): bounded in items, going on by its cursor, the scan made once per snapshot key', async () => {
  const bytes = fixture('claude-code', 'usage.jsonl');
  const format = await formatOf('claude-code');
  const whole = await all(bytes, format);
  let opened = 0;
  const source = bufferSource(bytes);
  const counting = { size: source.size, open: (start: number) => ((opened += 1), source.open(start)) };
  const first = await readTurns(counting, format, { turn: 1, maxItems: 10, maxBytes: 1 << 20, key: 'sha-of-usage' });
  assert.is(first.lastTurn, 1);
  assert.equal(first.items, whole.filter((item) => item.turn === 1).slice(0, 10));
  assert.ok(first.next !== null, 'more of the turn than the window holds');
  const afterFirst = opened;
  await readTurns(counting, format, { turn: 1, maxItems: 10, maxBytes: 1 << 20, key: 'sha-of-usage' });
  assert.is(opened - afterFirst, 1, 'the second window reads its turn only: the starts were kept');
  const rest = await readWindow(source, format, { from: first.next!, untilTurn: 2 });
  assert.equal(
    [...first.items, ...rest.items],
    whole.filter((item) => item.turn === 1),
  );
  const beyond = await readTurns(source, format, { turn: 7, maxItems: 10, maxBytes: 1 << 20 });
  assert.equal(beyond.items, []);
  assert.is(beyond.next, null);
});

test("Gemini CLI's older chat file, one indented JSON document: read element by element, the same items as its JSON lines", async () => {
  const lines = fixture('gemini', 'transcript.jsonl')
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
  const messages = lines.map((line) => JSON.parse(line)).filter((record) => typeof record.id === 'string');
  const doc = JSON.stringify(
    { sessionId: 's', projectHash: 'h', startTime: '2025-12-06T18:25:00.000Z', messages, lastUpdated: '2025-12-06T18:28:00Z' },
    null,
    2,
  );
  const format = await formatOf('gemini');
  const fromLines = await all(messages.map((message) => JSON.stringify(message)).join('\n'), format);
  const fromDoc = await all(doc, format);
  const strip = (items: TranscriptItem[]) => items.map(({ record: _record, offset: _offset, ...rest }) => rest);
  assert.equal(strip(fromDoc), strip(fromLines));
  assert.is(fromDoc[0]!.record, 4, 'sessionId, projectHash and startTime come first as records of their own');
  const { items } = await paged(doc, format, 2);
  assert.equal(items, fromDoc);
});

test('a Gemini message written again whole (its tool calls, then its tokens) is read once: what the later copy adds, never twice', async () => {
  const items = await all(fixture('gemini', 'session-usage.jsonl'), await formatOf('gemini'));
  const calls = items.filter((item) => item.kind === 'tool_call');
  assert.is(new Set(calls.map((call) => call.kind === 'tool_call' && call.id)).size, calls.length);
  const writes = calls.filter((call) => call.kind === 'tool_call' && call.files.length > 0);
  assert.equal(
    writes.map((call) => call.kind === 'tool_call' && [call.name, call.files, call.turn]),
    [
      ['write_file', ['GEMINI.md'], 1],
      ['replace', ['GEMINI.md'], 2],
    ],
  );
});

test('a transcript whose agent is not recorded is matched to its agent by its first records', async () => {
  for (const [agent, file] of [
    ['claude-code', 'usage.jsonl'],
    ['codex', 'rollout-usage.jsonl'],
    ['gemini', 'session-usage.jsonl'],
    ['cline', 'ui_messages.json'],
    ['copilot', 'events-usage.jsonl'],
    ['windsurf', 'transcript.jsonl'],
    ['qwen', 'transcript.jsonl'],
    ['droid', 'transcript.jsonl'],
  ] as const) {
    const format = await recognizeFormat(bufferSource(fixture(agent, file)));
    assert.is(format?.agent, agent, file);
  }
  assert.is(await recognizeFormat(bufferSource('{"nothing":"known"}\n')), undefined);
});

test.run();
