import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { capped, RESULT_MAX_CHARS } from '../../src/mcp/server.js';

/**
 * An MCP answer past RESULT_MAX_CHARS is still one JSON text that parses: its
 * lists are shortened from the end and the answer says what was left out,
 * rather than the text being cut in the middle of the JSON.
 */
function answerOf(value: unknown): any {
  const result = capped(value);
  assert.is(result.content.length, 1, 'one text');
  const text = (result.content[0] as { text: string }).text;
  assert.ok(text.length <= RESULT_MAX_CHARS, `${text.length} characters`);
  return JSON.parse(text);
}

const longLine = (line: number) => ({ line, commit: 'c'.repeat(40), type: 'ai', content: `${line} ${'x'.repeat(1_000)}` });

test('blame and why: fewer lines, the rest said, where to ask on', () => {
  const lines = Array.from({ length: 200 }, (_, at) => longLine(at + 1));
  const answer = answerOf({ path: 'src/retry.ts', rev: 'a'.repeat(40), working_tree: true, lines });
  assert.is(answer.path, 'src/retry.ts');
  assert.ok(answer.lines.length > 10 && answer.lines.length < 200, `${answer.lines.length} lines`);
  assert.equal(answer.lines.at(-1), lines[answer.lines.length - 1]);
  assert.is(answer.truncated, true);
  assert.is(answer.left_out.lines, 200 - answer.lines.length);
  assert.is(answer.left_out.next_line, answer.lines.length + 1);
  assert.match(answer.left_out.note, /Ask for less/);
});

test('read_conversation: fewer items, and the window no longer complete', () => {
  const items = Array.from({ length: 60 }, (_, at) => ({ kind: 'message', line: at + 1, role: 'assistant', text: 'y'.repeat(4_001) }));
  const answer = answerOf({ conversation_id: 'c1', turn: 1, last_turn: 3, items, complete: true, skipped: 0 });
  assert.ok(answer.items.length > 0 && answer.items.length < 60);
  assert.is(answer.complete, false);
  assert.is(answer.left_out.items, 60 - answer.items.length);
  assert.is(answer.left_out.next_line, undefined, 'an item line is a record, not a line to ask from');
});

test('several lists: the longest is shortened first, then the next', () => {
  const big = Array.from({ length: 100 }, (_, at) => ({ at, text: 'z'.repeat(2_000) }));
  const answer = answerOf({ files: big.slice(0, 40), conversations: big, commit: 'abc' });
  assert.is(answer.commit, 'abc');
  assert.is(answer.left_out.conversations, 100);
  assert.ok(answer.files.length > 0 && answer.files.length < 40);
  assert.is(answer.left_out.files, 40 - answer.files.length);
});

test('an answer with no list to shorten is replaced by a sentence, still JSON', () => {
  const answer = answerOf({ summary: 's'.repeat(70_000) });
  assert.is(answer.truncated, true);
  assert.match(answer.left_out.note, /over 60000: ask for less/);
});

test('an answer within the limit is as it was', () => {
  const value = { hits: [{ conversation_id: 'c1', snippet: '«retry»' }] };
  assert.equal(answerOf(value), value);
});

test.run();
