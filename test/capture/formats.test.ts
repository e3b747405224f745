import { closeSync, mkdirSync, openSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { lastClaudeAssistant, modelFromTranscript, normalizeClaudeCode } from '../../src/plugins/agents/claude-code.js';
import { normalizeCodex } from '../../src/plugins/agents/codex.js';
import { lastCursorAssistantText } from '../../src/plugins/agents/cursor.js';
import { conversationTraceIds, ledgerCommitOf, ledgerRecordOf } from '../../src/capture/ledger/ledger-line.js';
import { agentHookCommand, sameHookCommand } from '../../src/capture/install/invocation.js';
import { modelsDevId } from '../../src/core/model-id.js';
import { cleanup, tempDir } from '../helpers/cli.js';
import { validateRecord } from './agent-trace-schema.js';

/** Transcript readers, ledger shapes, model ids and hook commands: the pieces the real-agent tests run end to end. */
test.after(cleanup);

const assistant = (id: string, text: string, extra: Record<string, unknown> = {}, model = 'claude-opus-4-6') =>
  JSON.stringify({
    type: 'assistant',
    isSidechain: false,
    message: { id, model, role: 'assistant', content: [{ type: 'text', text }] },
    ...extra,
  });
const toolResult = JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', content: 'ok' }] } });

function transcript(lines: string[]): string {
  const path = join(tempDir('transcript-'), 't.jsonl');
  writeFileSync(path, lines.map((line) => `${line}\n`).join(''));
  return path;
}

test('the last assistant text skips subagent turns, synthetic messages and API errors', async () => {
  const path = transcript([
    assistant('m1', 'The real answer.'),
    assistant('m2', 'A subagent talking.', { isSidechain: true }),
    assistant('m3', 'No response requested.', {}, '<synthetic>'),
    assistant('m4', 'API Error: 529 overloaded', { isApiErrorMessage: true }),
  ]);
  assert.equal(await lastClaudeAssistant(path), { text: 'The real answer.', isLatest: true });
  assert.is(modelFromTranscript(path), 'claude-opus-4-6', 'the synthetic message names no model');
});

test('a transcript ending on a tool result has not got its final reply yet', async () => {
  assert.equal(await lastClaudeAssistant(transcript([assistant('m1', 'Working on it.'), toolResult])), {
    text: 'Working on it.',
    isLatest: false,
  });
});

test('the model is read from the end of a 65 MB transcript, never from the whole file', async () => {
  const path = join(tempDir('big-transcript-'), 't.jsonl');
  const fd = openSync(path, 'w');
  writeSync(fd, `${assistant('m0', 'first', {}, 'claude-sonnet-4-5')}\n`);
  const filler = `${toolResult}\n`.repeat(16 * 1024);
  for (let written = 0; written < 65 * 1024 * 1024; written += filler.length) writeSync(fd, filler);
  closeSync(fd);
  assert.is(modelFromTranscript(path), undefined, 'a model 65 MB back is past the bounded read');
  writeFileSync(path, `${assistant('m9', 'last', {}, 'claude-opus-4-6')}\n`, { flag: 'a' });
  assert.is(modelFromTranscript(path), 'claude-opus-4-6');
});

test("Cursor's transcript gives its last assistant text", async () => {
  const path = transcript([
    JSON.stringify({ role: 'user', message: { content: [{ type: 'text', text: 'hi' }] } }),
    JSON.stringify({ role: 'assistant', message: { content: [{ type: 'text', text: 'Hello.' }] } }),
  ]);
  assert.is(await lastCursorAssistantText(path), 'Hello.');
});

test('NotebookEdit: the new cell source is looked up line by line as the .ipynb spells it', () => {
  const event = normalizeClaudeCode('PostToolUse', {
    session_id: 's',
    tool_name: 'NotebookEdit',
    tool_input: { notebook_path: '/r/a.ipynb', cell_id: 'c1', new_source: 'x = 1\nprint(x)', edit_mode: 'replace' },
  });
  assert.equal(event.writes, [{ filePath: '/r/a.ipynb', fragments: [{ text: '"x = 1\\n"' }, { text: '"print(x)"' }] }]);
  assert.is(event.model, undefined, 'no transcript to read the model from');
});

test('Codex: a patch given as an argv, run in another folder, is read; a shell command without one records nothing', () => {
  const argv = normalizeCodex('PostToolUse', {
    session_id: 's',
    tool_name: 'Bash',
    tool_input: {
      command: ['bash', '-lc', "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: a.txt\n+hello\n*** End Patch\nEOF"],
      workdir: '/r/sub',
    },
  });
  assert.equal(argv.writes, [{ filePath: '/r/sub/a.txt', fragments: [{ text: 'hello', wholeLines: true }] }]);
  assert.is(argv.nothingToRecord, undefined);
  const plain = normalizeCodex('PostToolUse', { session_id: 's', tool_name: 'Bash', tool_input: { command: 'ls' } });
  assert.is(plain.nothingToRecord, true);
});

test('model ids take the models.dev provider/model form where the provider is known', () => {
  assert.is(modelsDevId('claude-opus-4-6'), 'anthropic/claude-opus-4-6');
  assert.is(modelsDevId('gpt-5.1-codex'), 'openai/gpt-5.1-codex');
  assert.is(modelsDevId('o3'), 'openai/o3');
  assert.is(modelsDevId('gemini-2.5-pro'), 'google/gemini-2.5-pro');
  assert.is(modelsDevId('anthropic/claude-opus-4-6'), 'anthropic/claude-opus-4-6', 'already in form');
  assert.is(modelsDevId('composer-2'), 'composer-2', 'unknown provider: kept as reported');
  assert.is(modelsDevId('default'), 'default');
});

const OLD_LEDGER = {
  sha: 'a'.repeat(64),
  version: '0.1',
  id: '3f1c2b4a-5d6e-8f70-8a1b-2c3d4e5f6a7b',
  timestamp: '2025-03-01T10:01:00.000Z',
  ts: '2025-03-01T10:01:00.000Z',
  commit: 'b'.repeat(40),
  vcs: { type: 'git', revision: 'b'.repeat(40) },
  tool: { name: 'tracer' },
  trace_ids: ['t1'],
  files: [
    {
      path: 'a.js',
      contributor: { type: 'ai' },
      conversations: [
        {
          url: 'claude-code://session/s1',
          contributor: { type: 'ai', model_id: 'claude-sonnet-4-5' },
          ranges: [{ start_line: 1, end_line: 2, contributor: { type: 'ai', model_id: 'claude-sonnet-4-5' } }],
          trace_ids: ['t1'],
        },
      ],
    },
  ],
  metadata: { 'dev.tracer': { parents: [], lines: { ai: 2, human: 0 } } },
};

test('ledgerRecordOf reads a ledger written before `record` existed: the record members from the top level', () => {
  const record = ledgerRecordOf(OLD_LEDGER)!;
  assert.equal(Object.keys(record), ['version', 'id', 'timestamp', 'vcs', 'tool', 'files', 'metadata']);
  assert.is(record.files[0]!.path, 'a.js');
  assert.equal(conversationTraceIds(record.files[0]!.conversations[0]!), ['t1']);
  assert.is(ledgerCommitOf(OLD_LEDGER), 'b'.repeat(40));
  assert.not.ok(validateRecord(record), 'the old shape is exactly what a strict validator refused');
  assert.is(ledgerRecordOf({ sha: 'x' }), undefined);
  assert.is(ledgerRecordOf('not a ledger'), undefined);
});

test('init keeps a hook command that runs the same program under another spelling (a symlink), and replaces a different one', () => {
  const dir = tempDir('invocation-');
  const script = join(dir, 'tracer.js');
  writeFileSync(script, '');
  mkdirSync(join(dir, 'linked'));
  symlinkSync(script, join(dir, 'linked', 'tracer.js'));
  symlinkSync(process.execPath, join(dir, 'node'));
  const wanted = agentHookCommand({ node: process.execPath, script }, 'codex', 'PostToolUse');
  assert.ok(
    sameHookCommand(
      agentHookCommand({ node: join(dir, 'node'), script: join(dir, 'linked', 'tracer.js') }, 'codex', 'PostToolUse'),
      wanted,
    ),
  );
  assert.ok(
    sameHookCommand(`'/bin/sh' '${join(dir, 'tracer-hook.sh')}' '${process.execPath}' '${script}' hook codex PostToolUse`, wanted),
    'quoted the other way',
  );
  assert.not.ok(
    sameHookCommand(`${process.execPath} ${script} hook codex PostToolUse`, wanted),
    'an older command that starts node itself is replaced',
  );
  assert.not.ok(
    sameHookCommand(agentHookCommand({ node: process.execPath, script: join(dir, 'other.js') }, 'codex', 'PostToolUse'), wanted),
  );
  assert.not.ok(sameHookCommand(agentHookCommand({ node: process.execPath, script }, 'codex', 'Stop'), wanted));
});

test.run();
