import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup, runMain, sandbox, tempDir } from '../helpers/cli.js';
import { hook, payload, projectDir, readJsonl } from './hook-fixtures.js';

test.after(cleanup);

const errorLog = (dir: string) => readJsonl(join(dir, 'hook-errors.log'));

/** A project with one recorded row, so each test can check that a bad call leaves it alone. */
async function recordedProject() {
  const box = sandbox();
  await hook('claude-code', 'SessionStart', payload('claude-code', 'SessionStart', { repo: box.repo }), { cwd: box.repo, home: box.home });
  const dir = projectDir(box.home);
  const before = readFileSync(join(dir, 'traces.jsonl'));
  const unchanged = () => assert.equal(readFileSync(join(dir, 'traces.jsonl')), before, 'traces.jsonl untouched');
  return { ...box, dir, unchanged };
}

test("Invalid JSON: exit 0, nothing on stdout or stderr, one line in the project's hook-errors.log without the payload text", async () => {
  const { repo, home, dir, unchanged } = await recordedProject();
  const result = await hook('claude-code', 'PostToolUse', '{"session_id": "s", "prompt": "secret plans', { cwd: repo, home });
  assert.is(result.stderr, '');
  unchanged();
  const [entry] = errorLog(dir);
  assert.is(entry!.code, 'invalid_payload');
  assert.is(entry!.agent, 'claude-code');
  assert.is(entry!.event, 'PostToolUse');
  assert.ok(typeof entry!.ts === 'string' && typeof entry!.message === 'string');
  assert.not.ok(readFileSync(join(dir, 'hook-errors.log'), 'utf8').includes('secret plans'));
});

test('Missing fields are logged and skipped: no session id, an Edit without file_path, Cursor edits that are not a list', async () => {
  const { repo, home, dir, unchanged } = await recordedProject();
  await hook('claude-code', 'Stop', JSON.stringify({ cwd: repo, hook_event_name: 'Stop' }), { cwd: repo, home });
  await hook(
    'claude-code',
    'PostToolUse',
    JSON.stringify({ session_id: 's', cwd: repo, tool_name: 'Edit', tool_input: { new_string: 'x' } }),
    { cwd: repo, home },
  );
  await hook(
    'cursor',
    'afterFileEdit',
    JSON.stringify({ conversation_id: 'c', workspace_roots: [repo], file_path: join(repo, 'a.txt'), edits: 'oops' }),
    { cwd: repo, home },
  );
  await hook('codex', 'Stop', '[1, 2]', { cwd: repo, home });
  unchanged();
  assert.equal(
    errorLog(dir).map((entry) => entry.code),
    ['missing_field', 'missing_field', 'missing_field', 'invalid_payload'],
  );
});

test('A lone surrogate in a payload is recorded as U+FFFD, with a valid content id, not lost', async () => {
  const { repo, home, dir } = await recordedProject();
  const raw = `{"session_id": "s\\ud800", "cwd": ${JSON.stringify(repo)}, "hook_event_name": "UserPromptSubmit", "prompt": "hi"}`;
  const result = await hook('claude-code', 'UserPromptSubmit', raw, { cwd: repo, home });
  assert.is(result.stdout, '');
  assert.not.ok(existsSync(join(dir, 'hook-errors.log')), 'nothing failed');
  const row = readJsonl(join(dir, 'traces.jsonl')).at(-1)!;
  assert.is(row.conversation_id, 's\ufffd');
  const { contentId } = await import('../../src/core/content-id.js');
  assert.is(row.id, contentId(row as Record<string, unknown>, 'id'));
});

test('A payload over 8 MiB is not read past the cap, logged and skipped', async () => {
  const { repo, home, dir, unchanged } = await recordedProject();
  const huge = Buffer.from(JSON.stringify({ session_id: 's', cwd: repo, prompt: 'y'.repeat(9 * 1024 * 1024) }));
  await hook('claude-code', 'UserPromptSubmit', huge, { cwd: repo, home });
  unchanged();
  assert.equal(
    errorLog(dir).map((entry) => entry.code),
    ['payload_too_large'],
  );
});

test('Unknown agent and empty stdin: logged under $TRACER_HOME when the folder has no project', async () => {
  const home = join(tempDir('tracer-home-'), 'home');
  const outside = tempDir('tracer-outside-');
  await hook('vim', 'Save', '{}', { cwd: outside, home });
  await hook('claude-code', 'Stop', '', { cwd: outside, home });
  assert.equal(
    errorLog(home).map((entry) => entry.code),
    ['unknown_agent', 'empty_payload'],
  );
  assert.not.ok(existsSync(join(home, 'projects')));
});

test('A transcript that cannot be read is logged; the trace row is still recorded', async () => {
  const { repo, home, dir } = await recordedProject();
  await hook('claude-code', 'Stop', payload('claude-code', 'Stop', { repo, transcript: join(repo, 'gone.jsonl') }), { cwd: repo, home });
  assert.equal(
    readJsonl(join(dir, 'traces.jsonl')).map((row) => row.event),
    ['SessionStart', 'Stop'],
  );
  assert.equal(
    errorLog(dir).map((entry) => entry.code),
    ['transcript_unreadable'],
    'logged once: the summary step reads the same transcript and has nothing to add',
  );
  assert.not.ok(existsSync(join(dir, 'conversations', '_index.json')));
});

test('Outside any git repository nothing is recorded unless capture_detached_edits is true', async () => {
  const home = join(tempDir('tracer-home-'), 'home');
  const outside = tempDir('tracer-outside-');
  writeFileSync(join(outside, 'notes.md'), 'first line\nsecond line\n');
  const input = JSON.stringify({
    session_id: 'd1',
    cwd: outside,
    tool_name: 'Write',
    tool_input: { file_path: join(outside, 'notes.md'), content: 'first line\nsecond line\n' },
  });
  await hook('claude-code', 'PostToolUse', input, { cwd: outside, home });
  assert.not.ok(existsSync(home), 'nothing written at all');

  const set = await runMain(['set', 'global', 'capture_detached_edits', 'true'], { cwd: outside, home });
  assert.is(set.code, 0, set.stderr);
  await hook('claude-code', 'PostToolUse', input, { cwd: outside, home });
  const [row] = readJsonl(join(home, 'detached', 'traces.jsonl'));
  assert.is(row!.files[0].path, join(outside, 'notes.md'));
  assert.equal(
    row!.files[0].ranges.map((range: any) => [range.start_line, range.end_line]),
    [[1, 2]],
  );
  assert.equal(readdirSync(home).sort(), ['config.json', 'detached']);
});

test("A file outside the repository is not recorded as the project's", async () => {
  const { repo, home, dir } = await recordedProject();
  const elsewhere = tempDir('tracer-elsewhere-');
  writeFileSync(join(elsewhere, 'x.txt'), 'hello\n');
  await hook(
    'claude-code',
    'PostToolUse',
    JSON.stringify({
      session_id: 's',
      cwd: repo,
      tool_name: 'Write',
      tool_input: { file_path: join(elsewhere, 'x.txt'), content: 'hello\n' },
    }),
    { cwd: repo, home },
  );
  const rows = readJsonl(join(dir, 'traces.jsonl'));
  assert.is(rows.length, 2);
  assert.is(rows[1]!.files, undefined);
});

test("tracer hook --help prints the command's help", async () => {
  const { run } = sandbox();
  const result = await run(['hook', '--help']);
  assert.is(result.code, 0);
  assert.match(result.stdout, /tracer hook <agent> <event>/);
});

test.run();
