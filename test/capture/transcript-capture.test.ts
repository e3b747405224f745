import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TranscriptItem } from '../../src/core/transcript.js';
import { opencode } from '../../src/plugins/agents/opencode.js';
import { readItems } from '../../src/transcript/read.js';
import { fileSource } from '../../src/transcript/source.js';
import { readUsage, usageFromTraces } from '../../src/transcript/usage.js';
import { cleanup, runTracer, sandbox, tempDir } from '../helpers/cli.js';
import { formatOf } from '../helpers/transcripts.js';
import { projectDir, readJsonl } from './hook-fixtures.js';

// Issue 32, item 1: the four agents whose transcripts were not captured (Cline,
// Kiro, goose, OpenCode) are now: their hook finds the conversation where the
// agent keeps it (a file, or rows of its database written out by its reader),
// the snapshot is taken at the end of the turn, and it reads through the
// agent's reader. Each through the real `tracer hook` command.
test.after(cleanup);

const AGENTS = fileURLToPath(new URL('../fixtures/agents/', import.meta.url));

async function setup() {
  const box = sandbox();
  assert.is((await box.run(['init', '--agents', 'none'])).code, 0);
  const userHome = tempDir('agent-user-home-');
  const env = {
    HOME: userHome,
    XDG_DATA_HOME: join(userHome, '.local', 'share'),
    XDG_CONFIG_HOME: join(userHome, '.config'),
    CLINE_DIR: '',
  };
  const hook = async (agent: string, event: string, payload: unknown) => {
    const result = await runTracer(['hook', agent, event], { cwd: box.repo, home: box.home, input: JSON.stringify(payload), env });
    assert.is(result.code, 0, result.stderr);
    assert.is(result.stdout, '');
  };
  return { ...box, userHome, hook };
}

/** The conversation's newest snapshot in the project's cache, as the hook left it. */
function snapshotOf(home: string, conversationId: string): string {
  const dir = projectDir(home);
  const errors = existsSync(join(dir, 'hook-errors.log')) ? readFileSync(join(dir, 'hook-errors.log'), 'utf8') : '';
  const index = JSON.parse(readFileSync(join(dir, 'conversations', '_index.json'), 'utf8')) as Record<string, string>;
  const sha = index[conversationId];
  assert.ok(sha, `a snapshot of ${conversationId} (${errors})`);
  return join(dir, 'conversations', sha!.slice(0, 2), sha!);
}

async function itemsOf(agent: string, path: string): Promise<TranscriptItem[]> {
  const items: TranscriptItem[] = [];
  for await (const item of readItems((await fileSource(path))!, await formatOf(agent))) items.push(item);
  return items;
}

test("Cline: TaskComplete snapshots the task's ui_messages.json from Cline's data folder, or from the editor's extension storage", async () => {
  for (const storage of [
    ['.cline', 'data'],
    ['.config', 'Code', 'User', 'globalStorage', 'saoudrizwan.claude-dev'],
  ]) {
    const box = await setup();
    const taskId = '1769064454592';
    const file = join(box.userHome, ...storage, 'tasks', taskId, 'ui_messages.json');
    mkdirSync(dirname(file), { recursive: true });
    copyFileSync(join(AGENTS, 'cline', 'ui_messages.json'), file);
    await box.hook('cline', 'TaskComplete', {
      clineVersion: '3.36.0',
      hookName: 'TaskComplete',
      timestamp: '1769067043918',
      taskId,
      workspaceRoots: [box.repo],
      userId: 'u1',
      taskComplete: { taskMetadata: { taskId } },
    });
    const snapshot = snapshotOf(box.home, taskId);
    assert.ok(readFileSync(snapshot).equals(readFileSync(file)), 'the bytes as Cline wrote them');
    const items = await itemsOf('cline', snapshot);
    const created = items.filter((item) => item.kind === 'tool_call' && item.name === 'newFileCreated');
    assert.is(created.length, 13);
    assert.ok(created.every((item) => item.kind === 'tool_call' && item.files.length === 1 && item.diff?.every((line) => line.op === '+')));
    assert.ok(items[0]!.kind === 'message' && items[0]!.role === 'person');
  }
});

test('Cline: a task id that would leave the tasks folder names no file, and nothing is snapshotted', async () => {
  const box = await setup();
  await box.hook('cline', 'TaskComplete', { hookName: 'TaskComplete', taskId: '../../../etc', workspaceRoots: [box.repo] });
  assert.not.ok(existsSync(join(projectDir(box.home), 'conversations', '_index.json')));
});

/** goose's sessions.db, in the columns goose's releases with a usage ledger write (the shape kenn-io/agentsview reads). */
function gooseDatabase(path: string, sessionId: string, repo: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.exec(`CREATE TABLE sessions (id TEXT PRIMARY KEY, name TEXT, description TEXT, working_dir TEXT, created_at TEXT, updated_at TEXT,
      provider_name TEXT, model_config_json TEXT, accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER, accumulated_total_tokens INTEGER);
    CREATE TABLE messages (id INTEGER PRIMARY KEY, message_id TEXT, session_id TEXT, role TEXT, content_json TEXT, created_timestamp INTEGER,
      timestamp TEXT, tokens INTEGER, metadata_json TEXT);
    CREATE TABLE usage_ledger (id INTEGER PRIMARY KEY, session_id TEXT, created_timestamp INTEGER, model TEXT, input_tokens INTEGER,
      output_tokens INTEGER, total_tokens INTEGER, cache_read_tokens INTEGER, cache_write_tokens INTEGER, cost REAL, cost_source TEXT, is_compaction INTEGER);`);
  db.prepare('INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').run(
    sessionId,
    'greet',
    'make greet use an f-string',
    repo,
    '2026-01-20 10:00:00',
    '2026-01-20 10:01:00',
    'anthropic',
    JSON.stringify({ model_name: 'claude-sonnet-4-5' }),
    999,
    999,
    1998,
  );
  const message = db.prepare(
    'INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, metadata_json) VALUES (?, ?, ?, ?, ?, ?)',
  );
  message.run(
    'm1',
    sessionId,
    'user',
    JSON.stringify([{ type: 'text', text: 'make greet use an f-string' }]),
    1768903200,
    '{"userVisible":true}',
  );
  message.run(
    'm2',
    sessionId,
    'assistant',
    JSON.stringify([
      { type: 'text', text: "I'll edit greet.py." },
      {
        type: 'toolRequest',
        id: 't1',
        toolCall: {
          status: 'success',
          value: {
            name: 'developer__text_editor',
            arguments: { command: 'str_replace', path: join(repo, 'greet.py'), old_str: '"hello " + name', new_str: 'f"Hello, {name}!"' },
          },
        },
      },
    ]),
    1768903205,
    '{}',
  );
  message.run(
    'm3',
    sessionId,
    'user',
    JSON.stringify([{ type: 'toolResponse', id: 't1', toolResult: { status: 'success', value: [{ type: 'text', text: 'edited' }] } }]),
    1768903206,
    '{}',
  );
  message.run('m4', sessionId, 'assistant', JSON.stringify([{ type: 'text', text: 'greet() now returns an f-string.' }]), 1768903210, '{}');
  message.run(
    'm5',
    sessionId,
    'assistant',
    JSON.stringify([{ type: 'text', text: 'hidden from the person' }]),
    1768903211,
    '{"userVisible":false}',
  );
  const usage = db.prepare(
    'INSERT INTO usage_ledger (session_id, created_timestamp, model, input_tokens, output_tokens, total_tokens, cache_read_tokens, cache_write_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  usage.run(sessionId, 1768903205, 'claude-sonnet-4-5', 1200, 80, 1280, 300, 50);
  usage.run(sessionId, 1768903210, 'claude-sonnet-4-5', 90, 20, 110, 1500, 0);
  usage.run('another-session', 1768903210, 'claude-sonnet-4-5', 5, 5, 10, 0, 0);
  db.close();
}

test("goose: Stop writes the session's rows of sessions.db out as JSON lines, snapshotted; read back, the edit, the prompt and the ledger's usage", async () => {
  const box = await setup();
  const sessionId = '20260120_3';
  gooseDatabase(join(box.userHome, '.local', 'share', 'goose', 'sessions', 'sessions.db'), sessionId, box.repo);
  await box.hook('goose', 'Stop', JSON.parse(readFileSync(join(AGENTS, 'goose', 'Stop.json'), 'utf8')));
  const snapshot = snapshotOf(box.home, sessionId);
  const items = await itemsOf('goose', snapshot);
  assert.equal(
    items.map((item) => `${item.turn}:${item.kind}${'role' in item ? `:${item.role}` : ''}`),
    ['0:meta:system', '1:message:person', '1:message:assistant', '1:tool_call:assistant', '1:tool_result:tool', '1:message:assistant'],
  );
  const edit = items.find((item) => item.kind === 'tool_call');
  assert.ok(edit?.kind === 'tool_call' && edit.files[0] === join(box.repo, 'greet.py') && edit.model === 'claude-sonnet-4-5');
  const usage = await readUsage((await fileSource(snapshot))!, await formatOf('goose'));
  assert.ok(usage.usage === 'known');
  if (usage.usage !== 'known') return;
  // The two ledger rows of this session (1200/80/300/50 and 90/20/1500/0), not the session's running totals, not another session's.
  assert.equal(usage.totals, { input: 1290, output: 100, cacheWrite: 50, cacheRead: 1800, reasoning: 0, cacheWrite1h: 0 });
  assert.ok(usage.records.every((record) => record.scope === 'request' && record.turn === 1));
});

test("goose: an older release's own session file is snapshotted as it is, and its running totals are a session's usage", async () => {
  const box = await setup();
  const sessionId = '20260120_3';
  const file = join(box.userHome, '.local', 'share', 'goose', 'sessions', `${sessionId}.jsonl`);
  mkdirSync(dirname(file), { recursive: true });
  const lines = [
    { working_dir: box.repo, description: 'greet', message_count: 2, accumulated_input_tokens: 640, accumulated_output_tokens: 72 },
    { role: 'user', created: 1768903200, content: [{ type: 'text', text: 'make greet use an f-string' }] },
    { role: 'assistant', created: 1768903210, content: [{ type: 'text', text: 'done' }] },
  ];
  writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
  await box.hook('goose', 'Stop', { event: 'Stop', session_id: sessionId });
  const snapshot = snapshotOf(box.home, sessionId);
  assert.ok(readFileSync(snapshot).equals(readFileSync(file)));
  const usage = await readUsage((await fileSource(snapshot))!, await formatOf('goose'));
  assert.ok(usage.usage === 'known' && usage.records.length === 1 && usage.records[0]!.scope === 'session');
  assert.ok(usage.usage === 'known' && usage.totals.input === 640 && usage.totals.output === 72);
});

const KIRO_SESSION = 'sess_5e748cf0-2069-4448-b1f7-35a1e42ad9b3';

test("Kiro CLI: Stop snapshots the session's own JSON lines (~/.kiro/sessions/cli/<id>.jsonl); the fs_write edit names its file", async () => {
  const box = await setup();
  const file = join(box.userHome, '.kiro', 'sessions', 'cli', `${KIRO_SESSION}.jsonl`);
  mkdirSync(dirname(file), { recursive: true });
  const lines = [
    { kind: 'Prompt', data: { content: [{ kind: 'text', data: 'make greet use an f-string' }] } },
    {
      kind: 'AssistantMessage',
      data: {
        content: [
          { kind: 'text', data: "I'll update greet.py." },
          {
            kind: 'toolUse',
            data: {
              toolUseId: 'tooluse_1',
              name: 'fs_write',
              input: { command: 'str_replace', path: 'greet.py', old_str: '"hello " + name', new_str: 'f"Hello, {name}!"' },
            },
          },
        ],
      },
    },
    {
      kind: 'ToolResults',
      data: {
        content: [{ kind: 'toolResult', data: { toolUseId: 'tooluse_1', content: [{ kind: 'text', data: 'done' }], status: 'success' } }],
      },
    },
  ];
  writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
  await box.hook('kiro', 'Stop', { hook_event_name: 'Stop', session_id: KIRO_SESSION, cwd: box.repo });
  const items = await itemsOf('kiro', snapshotOf(box.home, KIRO_SESSION));
  assert.equal(
    items.map((item) => item.kind),
    ['message', 'message', 'tool_call', 'tool_result'],
  );
  assert.ok(items[2]!.kind === 'tool_call' && items[2]!.files[0] === 'greet.py' && items[2]!.diff?.some((line) => line.op === '+'));
  assert.is((await readUsage((await fileSource(snapshotOf(box.home, KIRO_SESSION)))!, await formatOf('kiro'))).usage, 'unknown');
});

test('Kiro CLI: a session kept in the SQLite store (conversations_v2) is written out entry by entry and snapshotted', async () => {
  const box = await setup();
  const path = join(box.userHome, '.local', 'share', 'kiro-cli', 'data.sqlite3');
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.exec('CREATE TABLE conversations_v2 (key TEXT, conversation_id TEXT, value TEXT, created_at INTEGER, updated_at INTEGER)');
  // The value's shape: simonw/claude-code-transcripts tests/sample_kiro_export.json, with a file write.
  const value = {
    conversation_id: KIRO_SESSION,
    history: [
      {
        user: { content: { Prompt: { prompt: 'make greet use an f-string' } }, timestamp: '2026-01-09T12:00:00Z' },
        assistant: {
          ToolUse: {
            message_id: 'm1',
            content: "I'll edit it.",
            tool_uses: [{ id: 't1', name: 'fs_write', args: { command: 'create', path: 'greet.py', file_text: 'x = 1\n' } }],
          },
        },
        request_metadata: { model_id: 'claude-sonnet-4.5', stream_end_timestamp_ms: 1767960001000 },
      },
      {
        user: {
          content: { ToolUseResults: [{ tool_use_id: 't1', content: [{ Text: 'created' }], status: 'Success' }] },
          timestamp: '2026-01-09T12:00:02Z',
        },
        assistant: { Response: { message_id: 'm2', content: 'Done.' } },
        request_metadata: null,
      },
    ],
  };
  db.prepare('INSERT INTO conversations_v2 VALUES (?, ?, ?, ?, ?)').run(box.repo, KIRO_SESSION, JSON.stringify(value), 1, 2);
  db.close();
  await box.hook('kiro', 'Stop', { hook_event_name: 'Stop', session_id: KIRO_SESSION, cwd: box.repo });
  const items = await itemsOf('kiro', snapshotOf(box.home, KIRO_SESSION));
  assert.equal(
    items.map((item) => `${item.kind}${'role' in item ? `:${item.role}` : ''}`),
    ['message:person', 'message:assistant', 'tool_call:assistant', 'tool_result:tool', 'message:assistant'],
  );
  assert.ok(items[2]!.kind === 'tool_call' && items[2]!.files[0] === 'greet.py' && items[2]!.model === 'claude-sonnet-4.5');
});

test("OpenCode: session.idle snapshots the messages tracer's plugin wrote; read back as OpenCode's info and parts", async () => {
  const box = await setup();
  const file = join(tempDir('opencode-export-'), 'test-session-123.jsonl');
  copyFileSync(join(AGENTS, 'opencode', 'messages.jsonl'), file);
  await box.hook('opencode', 'session.idle', { sessionID: 'test-session-123', directory: box.repo, transcript_path: file });
  const items = await itemsOf('opencode', snapshotOf(box.home, 'test-session-123'));
  assert.equal(
    items.map((item) => `${item.kind}${'role' in item ? `:${item.role}` : ''}`),
    ['message:person', 'message:assistant', 'tool_call:assistant', 'tool_result:tool', 'message:assistant'],
  );
  assert.ok(
    items[2]!.kind === 'tool_call' &&
      items[2]!.files[0] === '/home/user/project/index.ts' &&
      items[2]!.model === 'claude-3-5-sonnet-20241022',
  );
});

test("OpenCode: the plugin tracer installs asks OpenCode's client for the session's messages, hands the hook a file of them, then deletes it", async () => {
  const dir = tempDir('opencode-plugin-');
  // Stands for `tracer hook opencode <event>`: keeps the payload and a copy of the file it names.
  writeFileSync(
    join(dir, 'capture.mjs'),
    `import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
const payload = JSON.parse(readFileSync(0, 'utf8'));
writeFileSync(${JSON.stringify(join(dir, 'payload.json'))}, JSON.stringify(payload));
if (payload.transcript_path) copyFileSync(payload.transcript_path, ${JSON.stringify(join(dir, 'copy.jsonl'))});\n`,
  );
  const install = opencode.install;
  assert.ok(install.kind === 'files');
  if (install.kind !== 'files') return;
  const [plugin] = install.files(() => `${JSON.stringify(process.execPath)} ${JSON.stringify(join(dir, 'capture.mjs'))}`);
  writeFileSync(join(dir, 'tracer.mjs'), plugin!.text);
  assert.is(spawnSync(process.execPath, ['--check', join(dir, 'tracer.mjs')]).status, 0, 'the plugin is valid JavaScript');
  const { TracerPlugin } = (await import(pathToFileURL(join(dir, 'tracer.mjs')).href)) as {
    TracerPlugin: (input: unknown) => Promise<{ event: (input: unknown) => Promise<void> }>;
  };
  const messages = readFileSync(join(AGENTS, 'opencode', 'messages.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  const asked: unknown[] = [];
  const client = { session: { messages: async (request: unknown) => (asked.push(request), { data: messages }) } };
  const hooks = await TracerPlugin({ directory: '/work/app', client });
  await hooks.event({ event: { type: 'session.idle', properties: { sessionID: 'test-session-123' } } });
  assert.equal(asked, [{ path: { id: 'test-session-123' } }]);
  const payload = JSON.parse(readFileSync(join(dir, 'payload.json'), 'utf8'));
  assert.is(payload.sessionID, 'test-session-123');
  assert.is(payload.directory, '/work/app');
  assert.ok(typeof payload.transcript_path === 'string' && !existsSync(payload.transcript_path), 'the file is gone once the hook is done');
  assert.equal(
    readFileSync(join(dir, 'copy.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line)),
    messages.map((message) => ({ info: message.info, parts: message.parts })),
  );
  // A client that fails, or a session id that could leave the folder: the hook still runs, with no transcript.
  for (const [sessionID, failing] of [
    ['s2', { session: { messages: async () => Promise.reject(new Error('down')) } }],
    ['../../x', client],
  ] as const) {
    const other = await TracerPlugin({ directory: '/work/app', client: failing });
    await other.event({ event: { type: 'session.idle', properties: { sessionID } } });
    assert.is(JSON.parse(readFileSync(join(dir, 'payload.json'), 'utf8')).transcript_path, undefined);
  }
  assert.not.ok(existsSync(dirname(payload.transcript_path)), 'its folder too');
});

test("Cursor 3 reports a turn's tokens in its stop and afterAgentResponse payloads: kept on the trace rows, counted once per generation", async () => {
  const box = await setup();
  const transcript = join(tempDir('cursor-transcript-'), 'transcript.jsonl');
  copyFileSync(join(AGENTS, 'cursor', 'transcript.jsonl'), transcript);
  const payload = (name: string) =>
    JSON.parse(
      readFileSync(join(AGENTS, 'cursor', `${name}.json`), 'utf8')
        .replaceAll('__REPO__', box.repo)
        .replaceAll('__TRANSCRIPT__', transcript),
    );
  await box.hook('cursor', 'afterAgentResponse', payload('afterAgentResponse'));
  await box.hook('cursor', 'stop', payload('stop'));
  // A payload whose counts are not counts keeps none.
  await box.hook('cursor', 'stop', { ...payload('stop'), generation_id: 'g2', input_tokens: -5, output_tokens: '9' });
  const rows = readJsonl(join(projectDir(box.home), 'traces.jsonl'));
  assert.equal(
    rows.map((row) => row.usage),
    [{ input: 17674, output: 220 }, { input: 17674, output: 220 }, undefined],
  );
  const report = usageFromTraces(rows);
  assert.ok(report?.usage === 'known');
  if (report?.usage !== 'known') return;
  assert.equal(report.totals, { input: 17674, output: 220, cacheWrite: 0, cacheRead: 0, reasoning: 0, cacheWrite1h: 0 });
  assert.is(report.records.length, 1);
  assert.is(usageFromTraces([{ id: 'x', ts: '2026-01-01T00:00:00Z' }]), undefined, 'rows without usage: none reported');
  assert.is((await readUsage((await fileSource(transcript))!, await formatOf('cursor'))).usage, 'unknown');
});

test.run();
