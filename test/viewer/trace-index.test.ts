import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scanTrace } from '../../src/viewer/local/trace-scan.js';
import { TraceIndex } from '../../src/viewer/local/trace-index.js';
import { withContentId } from '../../src/core/content-id.js';
import { cleanup, tempDir } from '../helpers/cli.js';

test.after(cleanup);

/** A row as `tracer hook` writes it (members in withContentId's order). */
function row(index: number, conversation: string, path = `src/file-${index % 3}.ts`): string {
  return JSON.stringify(
    withContentId(
      {
        id: '',
        ts: `2025-10-14T09:00:${String(index).padStart(2, '0')}.000Z`,
        agent: 'claude-code',
        event: 'PostToolUse',
        conversation_id: conversation,
        tool: 'Edit',
        model: 'claude-sonnet-4-5',
        files: [{ path, ranges: [{ start_line: 1, end_line: 2, content_sha256: 'ab' }], line_hashes: ['0123456789abcdef'] }],
      },
      'id',
    ),
  );
}

test('the fast path reads what JSON.parse reads, and steps aside for escapes', () => {
  const line = row(1, 'c1');
  const parsed = JSON.parse(line);
  assert.equal(scanTrace(line), {
    conversationId: 'c1',
    ts: parsed.ts,
    agent: 'claude-code',
    model: 'claude-sonnet-4-5',
    paths: [parsed.files[0].path],
  });
  assert.is(scanTrace(row(1, 'c1', 'src/"quoted".ts')), undefined);
  assert.is(scanTrace(row(1, 'c\\1')), undefined);
});

test('a row torn anywhere is never read by the fast path, even when the next append ends it with a newline', () => {
  const line = row(7, 'c7');
  for (let cut = 1; cut < line.length; cut += 1) {
    const torn = line.slice(0, cut);
    let valid = true;
    try {
      JSON.parse(torn);
    } catch {
      valid = false;
    }
    if (!valid) assert.is(scanTrace(torn), undefined, torn);
  }
});

test('sessions from traces.jsonl, appended rows picked up on refresh, torn and corrupt lines skipped', async () => {
  const path = join(tempDir('viewer-traces-'), 'traces.jsonl');
  writeFileSync(path, `${row(1, 'a')}\n${row(2, 'b')}\nnot json\n${row(3, 'a')}\n${row(4, 'b').slice(0, 90)}`);
  const index = new TraceIndex(path);
  await index.refresh();
  assert.equal([index.traces, index.sessions.size, index.file.unreadable], [3, 2, 2]);
  assert.equal([...index.sessions.get('a')!.files], ['src/file-1.ts', 'src/file-0.ts']);
  appendFileSync(path, `\n${row(5, 'c')}\n`);
  await index.refresh();
  assert.equal([index.traces, index.sessions.size, index.file.unreadable], [4, 3, 2]);
  assert.is(index.sessions.get('c')!.events, 1);
  writeFileSync(path, `${row(9, 'z')}\n`);
  await index.refresh();
  assert.equal([...index.sessions.keys()], ['z'], 'a file that shrank was replaced: indexed anew');
});

test.run();
