import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TranscriptEntry } from '../../src/viewer/data-source.js';
import { normalizeLine } from '../../src/viewer/local/transcript-normalize.js';

// The session page's reading of the JSONL transcripts of Gemini CLI, Copilot CLI,
// Factory Droid and Qwen Code (test/fixtures/agents/<agent>, provenance in
// test/fixtures/README.md): user and assistant turns in order, the tool calls
// between them, the model where the agent writes it.
const AGENTS_DIR = fileURLToPath(new URL('../fixtures/agents/', import.meta.url));

function entriesOf(agent: string, file = 'transcript.jsonl'): TranscriptEntry[] {
  return readFileSync(join(AGENTS_DIR, agent, file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line, index) => normalizeLine(JSON.parse(line), index + 1));
}

function shape(entries: TranscriptEntry[]): string[] {
  return entries.map((entry) =>
    entry.kind === 'message' ? `${entry.role}: ${entry.text}` : entry.kind === 'tool_call' ? `call ${entry.name}` : entry.kind,
  );
}

const TURN = ['user: make greet use an f-string', "assistant: I'll update greet.py."];
const CLOSING = 'assistant: greet() now returns an f-string.';

test('Gemini CLI chat: turns, the replace call, the model of each Gemini message', () => {
  const entries = entriesOf('gemini');
  assert.equal(shape(entries), [...TURN, 'call replace', CLOSING]);
  const reply = entries[1]!;
  assert.ok(reply.kind === 'message' && reply.model === 'gemini-2.5-pro');
  assert.is(entries[0]!.ts, '2026-01-20T10:14:58.002Z');
});

test("Copilot CLI events.jsonl: the session's model, turns, the edit request and its result", () => {
  const entries = entriesOf('copilot', 'events.jsonl');
  assert.equal(shape(entries), ['meta', ...TURN, 'call edit', 'tool_result', CLOSING]);
  assert.equal(entries[0], { kind: 'meta', line: 1, text: 'Copilot CLI session (claude-sonnet-4.5)', ts: '2026-01-20T10:14:57.000Z' });
  const call = entries.find((entry) => entry.kind === 'tool_call');
  const result = entries.find((entry) => entry.kind === 'tool_result');
  assert.ok(call?.kind === 'tool_call' && result?.kind === 'tool_result' && call.id === result.id);
});

test("Factory Droid transcript: Claude's content blocks inside {type: message}", () => {
  const entries = entriesOf('droid');
  assert.equal(shape(entries), [...TURN, 'call Edit', 'tool_result', CLOSING]);
  const reply = entries[1]!;
  assert.ok(reply.kind === 'message' && reply.model === 'claude-sonnet-4-5-20250929');
});

test('Qwen Code chat: parts with text and function calls, the model of the line', () => {
  const entries = entriesOf('qwen');
  assert.equal(shape(entries), [...TURN, 'call edit', CLOSING]);
  const reply = entries[1]!;
  assert.ok(reply.kind === 'message' && reply.model === 'qwen3-coder-plus');
});

test.run();
