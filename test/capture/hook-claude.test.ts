import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { lineHash } from '../../src/capture/trace-record.js';
import { contentId } from '../../src/core/content-id.js';
import { cleanup, sandbox, tempDir } from '../helpers/cli.js';
import { fixturePath, hook, payload, projectDir, readJsonl } from './hook-fixtures.js';

test.after(cleanup);

const SESSION = '0d8f6c1e-5a2b-4c47-9d7e-3f1b2a6c9e10';
const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

function setup() {
  const box = sandbox();
  mkdirSync(join(box.repo, 'src'));
  const transcript = join(tempDir('claude-transcripts-'), `${SESSION}.jsonl`);
  copyFileSync(fixturePath('claude-code', 'transcript.jsonl'), transcript);
  const send = (event: string, name = event) =>
    hook('claude-code', event, payload('claude-code', name, { repo: box.repo, transcript }), { cwd: box.repo, home: box.home });
  return { ...box, transcript, send };
}

test("Write: the whole file is the agent's; the first capture creates the anchor and registers the project", async () => {
  const { repo, home, send } = setup();
  const content = 'export function greet(name: string): string {\n  return `Hello, ${name}!`;\n}\n';
  writeFileSync(join(repo, 'src/greet.ts'), content);
  await send('PostToolUse', 'PostToolUse.Write');

  assert.ok(existsSync(join(repo, '.git', 'tracer-id')), 'anchor created');
  const registry = JSON.parse(readFileSync(join(home, 'projects.json'), 'utf8'));
  assert.equal(Object.keys(registry.projects).length, 1);
  const [row] = readJsonl(join(projectDir(home), 'traces.jsonl'));
  assert.is(row!.id, contentId(row!, 'id'));
  assert.is(row!.agent, 'claude-code');
  assert.is(row!.event, 'PostToolUse');
  assert.is(row!.conversation_id, SESSION);
  assert.is(row!.tool, 'Write');
  const lines = content.split('\n').slice(0, 3);
  assert.equal(row!.files, [
    {
      path: 'src/greet.ts',
      ranges: [{ start_line: 1, end_line: 3, content_sha256: sha256(lines.join('\n')) }],
      line_hashes: lines.map(lineHash),
    },
  ]);
});

test('Edit: the range covers the new text as the file now stands, line_hashes its non-blank whole lines', async () => {
  const { repo, home, send } = setup();
  writeFileSync(
    join(repo, 'src/main.ts'),
    "// entry point\nimport { greet } from './greet.js';\n\nconsole.log(greet('world'));\nexport {};\n",
  );
  await send('PostToolUse', 'PostToolUse.Edit');
  const [row] = readJsonl(join(projectDir(home), 'traces.jsonl'));
  const written = ["import { greet } from './greet.js';", '', "console.log(greet('world'));"];
  assert.equal(row!.files[0].ranges, [{ start_line: 2, end_line: 4, content_sha256: sha256(written.join('\n')) }]);
  assert.equal(row!.files[0].line_hashes, [lineHash(written[0]!), lineHash(written[2]!)]);
});

test('MultiEdit: a path relative to cwd, one range per edit, replace_all takes every occurrence', async () => {
  const { repo, home, send } = setup();
  const text = [
    'export const config = {',
    '  port: Number(process.env.PORT ?? 8080),',
    '  debug: false,',
    '  nested: { debug: false },',
    '};',
    '',
  ].join('\n');
  writeFileSync(join(repo, 'src/config.ts'), text);
  await send('PostToolUse', 'PostToolUse.MultiEdit');
  const [row] = readJsonl(join(projectDir(home), 'traces.jsonl'));
  assert.is(row!.files[0].path, 'src/config.ts');
  assert.equal(
    row!.files[0].ranges.map((range: any) => [range.start_line, range.end_line]),
    [
      [2, 2],
      [3, 3],
      [4, 4],
    ],
  );
  assert.equal(row!.files[0].line_hashes, [
    lineHash('  port: Number(process.env.PORT ?? 8080),'),
    lineHash('  debug: false,'),
    lineHash('  nested: { debug: false },'),
  ]);
});

test('Other events: one row each, no files; the prompt is never stored, only its length', async () => {
  const { home, send } = setup();
  await send('SessionStart');
  await send('UserPromptSubmit');
  await send('PreToolUse');
  const rows = readJsonl(join(projectDir(home), 'traces.jsonl'));
  assert.equal(
    rows.map((row) => row.event),
    ['SessionStart', 'UserPromptSubmit', 'PreToolUse'],
  );
  assert.ok(rows.every((row) => row.files === undefined));
  assert.is(rows[0]!.model, 'claude-sonnet-4-5-20250929');
  const prompt = 'Add a greet() helper to src/greet.ts and use it in src/main.ts';
  assert.is(rows[1]!.prompt_chars, prompt.length);
  assert.not.ok(readFileSync(join(projectDir(home), 'traces.jsonl'), 'utf8').includes('greet() helper'));
});

test('Stop: the transcript is snapshotted, indexed and summarized once; new bytes make a new snapshot and the old one stays', async () => {
  const { home, transcript, send } = setup();
  await send('Stop');
  const dir = projectDir(home);
  const first = readFileSync(transcript);
  const firstSha = sha256(first);
  assert.equal(readFileSync(join(dir, 'conversations', firstSha.slice(0, 2), firstSha)), first);
  assert.equal(JSON.parse(readFileSync(join(dir, 'conversations', '_index.json'), 'utf8')), { [SESSION]: firstSha });
  const rows = readJsonl(join(dir, 'conversations.jsonl'));
  assert.equal(
    rows.map(({ conversation_id, content_sha256, size }) => ({ conversation_id, content_sha256, size })),
    [{ conversation_id: SESSION, content_sha256: firstSha, size: first.length }],
  );
  const [summary] = readJsonl(join(dir, 'session-summaries.jsonl'));
  assert.is(summary!.conversation_url, `claude-code://session/${SESSION}`);
  assert.is(summary!.summary, "Added `greet()` in src/greet.ts.\n\nsrc/main.ts now prints greet('world').");
  assert.is(summary!.agent, 'claude-code');
  assert.is(summary!.conversation_id, SESSION);
  assert.is(summary!.id, contentId(summary!, 'id'));

  // Same bytes again (SessionEnd right after Stop): no new snapshot row, no second identical summary.
  await send('SessionEnd');
  assert.is(readJsonl(join(dir, 'conversations.jsonl')).length, 1);
  assert.is(readJsonl(join(dir, 'session-summaries.jsonl')).length, 1);

  appendFileSync(
    transcript,
    `${JSON.stringify({ type: 'assistant', message: { id: 'msg_01C', role: 'assistant', content: [{ type: 'text', text: 'Also added a test.' }] } })}\n`,
  );
  await send('Stop');
  const second = readFileSync(transcript);
  const secondSha = sha256(second);
  assert.equal(JSON.parse(readFileSync(join(dir, 'conversations', '_index.json'), 'utf8')), { [SESSION]: secondSha });
  assert.ok(existsSync(join(dir, 'conversations', firstSha.slice(0, 2), firstSha)), 'earlier snapshot kept');
  assert.equal(readFileSync(join(dir, 'conversations', secondSha.slice(0, 2), secondSha)), second);
  assert.is(readJsonl(join(dir, 'conversations.jsonl')).length, 2);
  const summaries = readJsonl(join(dir, 'session-summaries.jsonl'));
  assert.equal(
    summaries.map((row) => row.summary),
    ["Added `greet()` in src/greet.ts.\n\nsrc/main.ts now prints greet('world').", 'Also added a test.'],
  );
  assert.equal(
    readJsonl(join(dir, 'traces.jsonl')).map((row) => row.event),
    ['Stop', 'SessionEnd', 'Stop'],
  );
});

test('A transcript of several MB is snapshotted byte for byte', async () => {
  const { home, transcript, send } = setup();
  const line = `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'x'.repeat(4000) } })}\n`;
  appendFileSync(transcript, line.repeat(1500));
  appendFileSync(
    transcript,
    `${JSON.stringify({ type: 'assistant', message: { id: 'm9', role: 'assistant', content: [{ type: 'text', text: 'Done after a long session.' }] } })}\n`,
  );
  await send('SessionEnd');
  const bytes = readFileSync(transcript);
  const sha = sha256(bytes);
  assert.ok(bytes.length > 5 * 1024 * 1024);
  assert.equal(readFileSync(join(projectDir(home), 'conversations', sha.slice(0, 2), sha)), bytes);
  assert.is(readJsonl(join(projectDir(home), 'session-summaries.jsonl'))[0]!.summary, 'Done after a long session.');
});

test.run();
