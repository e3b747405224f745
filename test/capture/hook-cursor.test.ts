import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { lineHash } from '../../src/capture/trace-record.js';
import { cleanup, git, sandbox, tempDir } from '../helpers/cli.js';
import { fixturePath, hook, payload, projectDir, readJsonl } from './hook-fixtures.js';

test.after(cleanup);

const CONVERSATION = 'c7a1e9b2-44f0-4e0c-8a51-2b9d6f3e7a01';
const GENERATION = 'a3f0c2d9-1b7e-4c65-9e2a-5d8b0f4c6e11';

function setup() {
  const box = sandbox();
  mkdirSync(join(box.repo, 'lib'));
  const transcript = join(tempDir('cursor-transcripts-'), 'transcript.jsonl');
  copyFileSync(fixturePath('cursor', 'transcript.jsonl'), transcript);
  // Cursor runs hooks from anywhere; the project comes from workspace_roots, so run them from a subfolder.
  const send = (event: string) =>
    hook('cursor', event, payload('cursor', event, { repo: box.repo, transcript }), { cwd: join(box.repo, 'lib'), home: box.home });
  return { ...box, transcript, send };
}

test('afterFileEdit: one range per edit, turn_id from generation_id, model kept', async () => {
  const { repo, home, send } = setup();
  const text = [
    'import time',
    '',
    'def retry(fn, attempts=3):',
    '    for _ in range(attempts):',
    '        try:',
    '            return fn()',
    '        except Exception:',
    '            time.sleep(1)',
    '',
    '',
    'DEFAULT_ATTEMPTS = 3',
    '',
  ].join('\n');
  writeFileSync(join(repo, 'lib/retry.py'), text);
  await send('afterFileEdit');
  const [row] = readJsonl(join(projectDir(home), 'traces.jsonl'));
  assert.is(row!.agent, 'cursor');
  assert.is(row!.event, 'afterFileEdit');
  assert.is(row!.conversation_id, CONVERSATION);
  assert.is(row!.turn_id, GENERATION);
  assert.is(row!.model, 'claude-4.5-sonnet');
  assert.is(row!.files[0].path, 'lib/retry.py');
  assert.equal(
    row!.files[0].ranges.map((range: any) => [range.start_line, range.end_line]),
    [
      [3, 4],
      [10, 11],
    ],
  );
  const sha = createHash('sha256').update('def retry(fn, attempts=3):\n    for _ in range(attempts):').digest('hex');
  assert.is(row!.files[0].ranges[0].content_sha256, sha);
  assert.equal(
    row!.files[0].line_hashes,
    ['def retry(fn, attempts=3):', '    for _ in range(attempts):', 'DEFAULT_ATTEMPTS = 3'].map(lineHash),
  );
});

test('A linked worktree records into the same project, with paths relative to that worktree', async () => {
  const { repo, home, send } = setup();
  await send('sessionStart');
  const worktree = join(tempDir('tracer-worktree-'), 'wt');
  git(repo, 'worktree', 'add', '-q', worktree);
  mkdirSync(join(worktree, 'lib'), { recursive: true });
  writeFileSync(join(worktree, 'lib/retry.py'), 'def retry(fn, attempts=3):\n    for _ in range(attempts):\n        pass\n');
  const input = payload('cursor', 'afterFileEdit', { repo: worktree });
  await hook('cursor', 'afterFileEdit', input, { cwd: worktree, home });
  const rows = readJsonl(join(projectDir(home), 'traces.jsonl'));
  assert.equal(
    rows.map((row) => row.event),
    ['sessionStart', 'afterFileEdit'],
  );
  assert.is(rows[1]!.files[0].path, 'lib/retry.py');
  const registry = JSON.parse(readFileSync(join(home, 'projects.json'), 'utf8'));
  const [entry] = Object.values(registry.projects) as Array<{ repo_paths: string[] }>;
  assert.is(entry!.repo_paths.length, 2);
});

test('beforeSubmitPrompt keeps only the prompt length; stop snapshots the transcript; sessionEnd adds a row', async () => {
  const { home, transcript, send } = setup();
  await send('beforeSubmitPrompt');
  await send('stop');
  await send('sessionEnd');
  const dir = projectDir(home);
  const rows = readJsonl(join(dir, 'traces.jsonl'));
  assert.equal(
    rows.map((row) => row.event),
    ['beforeSubmitPrompt', 'stop', 'sessionEnd'],
  );
  assert.is(rows[0]!.prompt_chars, 'Make the retry count configurable'.length);
  assert.not.ok(readFileSync(join(dir, 'traces.jsonl'), 'utf8').includes('retry count'));
  const sha = createHash('sha256').update(readFileSync(transcript)).digest('hex');
  assert.equal(JSON.parse(readFileSync(join(dir, 'conversations', '_index.json'), 'utf8')), { [CONVERSATION]: sha });
  // The summary is the transcript's last assistant text, recorded once although stop and sessionEnd both read it.
  const summaries = readJsonl(join(dir, 'session-summaries.jsonl'));
  assert.equal(
    summaries.map((row) => [row.conversation_url, row.summary]),
    [[`cursor://conversation/${CONVERSATION}`, 'retry() now takes an attempts argument (default 3) and DEFAULT_ATTEMPTS documents it.']],
  );
});

test.run();
