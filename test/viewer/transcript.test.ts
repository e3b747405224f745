import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TranscriptStore } from '../../src/viewer/local/transcripts.js';
import type { TranscriptEntry } from '../../src/viewer/data-source.js';
import { fixturePath } from '../capture/hook-fixtures.js';
import { cleanup, tempDir } from '../helpers/cli.js';
import { fileEntries, recordEntries } from '../helpers/transcripts.js';

test.after(cleanup);

/** The agent's transcript fixture, read through its own format as the session page reads it. */
function entriesOf(agent: string): Promise<TranscriptEntry[]> {
  return fileEntries(agent, fixturePath(agent, 'transcript.jsonl'));
}

test('Claude Code: messages, a Write as an all-added diff, its result matched by the tool_use id', async () => {
  const entries = await entriesOf('claude-code');
  assert.equal(entries[0], { kind: 'meta', line: 1, text: 'Summary: Greeting helper' });
  assert.is(entries[1]!.kind === 'message' && entries[1]!.role, 'user');
  const call = entries.find((entry) => entry.kind === 'tool_call');
  assert.ok(call && call.kind === 'tool_call');
  assert.is(call.name, 'Write');
  assert.is(call.file, '/work/app/src/greet.ts');
  assert.equal(
    call.diff?.map((line) => line.op),
    ['+', '+', '+'],
  );
  const result = entries.find((entry) => entry.kind === 'tool_result');
  assert.ok(result && result.kind === 'tool_result' && result.id === call.id);
});

test('Codex: session meta, user and assistant messages; event_msg duplicates are not shown twice', async () => {
  const entries = await entriesOf('codex');
  assert.equal(
    entries.map((entry) => entry.kind + (entry.kind === 'message' ? `:${entry.role}` : '')),
    ['meta', 'message:user', 'message:assistant'],
  );
  const patch = await recordEntries(
    'codex',
    [
      {
        type: 'response_item',
        payload: {
          type: 'custom_tool_call',
          name: 'apply_patch',
          call_id: 'c1',
          input: '*** Begin Patch\n*** Update File: a.txt\n@@\n-old\n+new\n*** End Patch\n',
        },
      },
    ],
    9,
  );
  assert.equal(patch[0]!.kind === 'tool_call' && patch[0]!.diff, [
    { op: '@', text: 'Update File: a.txt' },
    { op: '@', text: '@@' },
    { op: '-', text: 'old' },
    { op: '+', text: 'new' },
  ]);
  const duplicate = await recordEntries('codex', [{ type: 'event_msg', payload: { type: 'agent_message', message: 'again' } }], 10);
  assert.equal(duplicate, []);
});

test('Cursor: role and text lines; an Edit shows the replaced lines between shared context', async () => {
  assert.equal(
    (await entriesOf('cursor')).map((entry) => entry.kind === 'message' && entry.role),
    ['user', 'assistant'],
  );
  const [edit] = await recordEntries('cursor', [
    {
      type: 'assistant',
      message: {
        content: [{ type: 'tool_use', id: 't', name: 'Edit', input: { file_path: 'a.ts', old_string: 'a\nb\nc', new_string: 'a\nB\nc' } }],
      },
    },
  ]);
  assert.equal(edit!.kind === 'tool_call' && edit!.diff, [
    { op: ' ', text: 'a' },
    { op: '-', text: 'b' },
    { op: '+', text: 'B' },
    { op: ' ', text: 'c' },
  ]);
});

test('shapes it does not know, and values that are not objects, give nothing rather than failing', async () => {
  for (const agent of ['claude-code', 'codex', 'cursor'])
    for (const value of [null, 3, 'text', [], { type: 'file-history-snapshot' }, { type: 'assistant', message: 'no' }, { role: 'user' }])
      assert.equal(await recordEntries(agent, [value]), [], `${agent}: ${JSON.stringify(value)}`);
});

/** A project folder holding one snapshot, laid out as `tracer hook` leaves it. */
function snapshot(conversationId: string, text: string): string {
  const dir = tempDir('viewer-transcripts-');
  const sha = createHash('sha256').update(text).digest('hex');
  mkdirSync(join(dir, 'conversations', sha.slice(0, 2)), { recursive: true });
  writeFileSync(join(dir, 'conversations', sha.slice(0, 2), sha), text);
  writeFileSync(join(dir, 'conversations', '_index.json'), JSON.stringify({ [conversationId]: sha }));
  return dir;
}

function userLine(index: number, size = 100): string {
  return JSON.stringify({
    type: 'user',
    timestamp: '2025-10-14T09:00:00.000Z',
    message: { role: 'user', content: `message ${index} ${'x'.repeat(size)}` },
  });
}

test('a large transcript comes in pages that chain to its end, each reading at most about 1 MB', async () => {
  const lines = Array.from({ length: 6_000 }, (_, index) => userLine(index, 1_500));
  const dir = snapshot('big', `${lines.join('\n')}\n`);
  const store = new TranscriptStore(dir);
  const first = await store.page('big', undefined, 60);
  assert.is(first.entries.length, 60);
  assert.ok(first.next !== null && first.position < first.size / 50);
  let cursor: string | null = first.next;
  let seen = first.entries.length;
  let previous = first.position;
  while (cursor !== null) {
    const page = await store.page('big', cursor, 500);
    assert.ok(page.position - previous <= (1 << 20) + 2_000, 'a page reads at most about 1 MB');
    previous = page.position;
    seen += page.entries.length;
    cursor = page.next;
  }
  assert.is(seen, 6_000);
  assert.is(previous, first.size);
});

test('a torn line is counted as skipped; a missing snapshot and a foreign cursor are refused with their codes', async () => {
  const dir = snapshot('torn', `${userLine(1)}\n{"type":"user","mess\n${userLine(2)}\n{"type":"us`);
  const page = await new TranscriptStore(dir).page('torn', undefined, 100);
  assert.is(page.entries.length, 2);
  assert.is(page.skipped, 2);
  const store = new TranscriptStore(dir);
  for (const [id, cursor, code] of [
    ['absent', undefined, 'transcript_missing'],
    ['torn', '999999999.1', 'bad_cursor'],
    ['torn', '../../etc', 'bad_cursor'],
  ] as const) {
    try {
      await store.page(id, cursor, 10);
      assert.unreachable(`${id} ${cursor}`);
    } catch (error) {
      assert.is((error as { code?: string }).code, code);
    }
  }
});

test('an index entry that is not a sha never becomes a path', async () => {
  const dir = tempDir('viewer-transcripts-');
  mkdirSync(join(dir, 'conversations'), { recursive: true });
  writeFileSync(join(dir, 'conversations', '_index.json'), JSON.stringify({ evil: '../../../../etc/passwd' }));
  assert.is(await new TranscriptStore(dir).locate('evil'), undefined);
});

test.run();
