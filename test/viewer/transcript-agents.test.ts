import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TranscriptEntry } from '../../src/viewer/data-source.js';
import { fileEntries } from '../helpers/transcripts.js';

// The session page's reading of the JSONL transcripts of Gemini CLI, Copilot CLI,
// Factory Droid, Qwen Code and Windsurf (test/fixtures/agents/<agent>, provenance in
// test/fixtures/README.md): user and assistant turns in order, the tool calls
// between them, the model where the agent writes it.
const AGENTS_DIR = fileURLToPath(new URL('../fixtures/agents/', import.meta.url));

/** The fixture read through the agent's own format, as the session page reads it. */
function entriesOf(agent: string, file = 'transcript.jsonl'): Promise<TranscriptEntry[]> {
  return fileEntries(agent, join(AGENTS_DIR, agent, file));
}

function shape(entries: TranscriptEntry[]): string[] {
  return entries.map((entry) =>
    entry.kind === 'message' ? `${entry.role}: ${entry.text}` : entry.kind === 'tool_call' ? `call ${entry.name}` : entry.kind,
  );
}

const TURN = ['user: make greet use an f-string', "assistant: I'll update greet.py."];
const CLOSING = 'assistant: greet() now returns an f-string.';

test('Gemini CLI chat (a captured session): turns, the replace calls with their diff, the model of each Gemini message', async () => {
  const entries = await entriesOf('gemini');
  assert.equal(shape(entries), [
    'user: add another hello bob console log to @index.ts',
    "assistant: I will add console.log('hello bob') to the index.ts file.",
    'call replace',
    'assistant: Reading the file for context.',
    'call read_file',
    'assistant: Retrying with more context.',
    'call replace',
    'assistant: Verifying changes.',
    'call read_file',
    'assistant: Task complete.',
  ]);
  const reply = entries[1]!;
  assert.ok(reply.kind === 'message' && reply.model === 'gemini-2.5-flash');
  assert.is(entries[0]!.ts, '2025-12-06T18:25:18.042Z');
  const replace = entries[2]!;
  assert.ok(replace.kind === 'tool_call' && replace.file === '/home/user/project/index.ts');
  assert.ok(replace.kind === 'tool_call' && replace.diff?.some((line) => line.op === '+' && line.text === "console.log('hello bob');"));
});

test('Copilot CLI events.jsonl (a captured session): the model change, turns, the create request (arguments a JSON string) and its result', async () => {
  const entries = await entriesOf('copilot', 'events.jsonl');
  assert.equal(shape(entries), [
    'meta',
    'meta',
    'user: create a hello world file',
    "assistant: I'll create a hello world file for you.",
    'call create',
    'tool_result',
  ]);
  assert.equal(entries[1], { kind: 'meta', line: 2, text: 'Model: gpt-4.1', ts: '2026-05-12T00:21:07.674Z' });
  const call = entries.find((entry) => entry.kind === 'tool_call');
  const result = entries.find((entry) => entry.kind === 'tool_result');
  if (call?.kind !== 'tool_call' || result?.kind !== 'tool_result') throw new Error('a tool call and its result');
  assert.is(call.id, result.id);
  assert.equal(JSON.parse(call.input), { path: '/home/user/project/hello.py', file_text: "print('hello world')\n" });
  assert.is(result.text, 'Created file /home/user/project/hello.py');
});

test("Factory Droid transcript (a captured session): Claude's content blocks inside {type: message}, the ApplyPatch diff", async () => {
  const entries = await entriesOf('droid');
  const calls = entries.filter((entry) => entry.kind === 'tool_call').map((entry) => (entry.kind === 'tool_call' ? entry.name : ''));
  assert.equal(calls, ['Read', 'TodoWrite', 'ApplyPatch', 'Read', 'TodoWrite']);
  assert.is(entries.filter((entry) => entry.kind === 'tool_result').length, 5);
  assert.is(shape(entries)[0], 'user: Update the first comment in @index.ts to "DROID3"');
  const closing = entries.at(-1)!;
  assert.ok(closing.kind === 'message' && closing.role === 'assistant' && closing.text.startsWith('# Update complete'));
  const patch = entries.find((entry) => entry.kind === 'tool_call' && entry.name === 'ApplyPatch');
  assert.ok(patch?.kind === 'tool_call' && patch.diff?.some((line) => line.op === '+' && line.text === '// DROID3'));
});

test('Windsurf Cascade transcript (a captured session): user inputs, planner responses, tool steps with their output, a failed step', async () => {
  const entries = await entriesOf('windsurf');
  const steps = entries.map((entry) =>
    entry.kind === 'message' ? entry.role : entry.kind === 'tool_call' ? `call ${entry.name}` : entry.kind,
  );
  assert.equal(steps, [
    'user',
    'assistant',
    'call view_file',
    'tool_result',
    'call code_action',
    'assistant',
    'call run_command',
    'user',
    'call list_directory',
    'call grep_search',
    'call list_resources',
    'tool_result',
    'assistant',
  ]);
  assert.equal(shape(entries.slice(0, 2)), [
    'user: Write a song in @[xyz.md] ',
    "assistant: I'll write a song in the xyz.md file for you.",
  ]);
  assert.match(shape([entries[5]!])[0]!, /^assistant: I've written a song called/);
  const failed = entries[11]!;
  assert.ok(failed.kind === 'tool_result' && failed.error === true);
  const view = entries[3]!;
  assert.ok(view.kind === 'tool_result' && view.text.includes('# XYZ') && view.error === false);
  const command = entries[6]!;
  assert.ok(command.kind === 'tool_call' && JSON.parse(command.input).command === 'clear');
});

test('Qwen Code chat: parts with text and function calls, the model of the line', async () => {
  const entries = await entriesOf('qwen');
  assert.equal(shape(entries), [...TURN, 'call edit', CLOSING]);
  const reply = entries[1]!;
  assert.ok(reply.kind === 'message' && reply.model === 'qwen3-coder-plus');
});

test.run();
