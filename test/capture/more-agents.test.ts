import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanEnv, cleanup, sandbox, settleSpool, tempDir } from '../helpers/cli.js';
import { assertValidLedger } from './agent-trace-schema.js';
import { projectDir, readJsonl } from './hook-fixtures.js';
import { spoolFolded } from '../helpers/spool.js';

/**
 * The nine agents added by issue 21, each through what `tracer init --agents <id>`
 * installs, as the agent would run it: install, a second run that changes
 * nothing, an edit payload (test/fixtures/agents/<id>, provenance in
 * test/fixtures/README.md) through the installed command, a commit through the
 * installed git hook, and an Agent Trace ledger whose AI lines name the agent;
 * then uninstall, which leaves the user's own hook entries where they were.
 */
test.after(cleanup);

const AGENTS_DIR = fileURLToPath(new URL('../fixtures/agents/', import.meta.url));
const BEFORE = 'def greet(name):\n    return "hello " + name\n';
const AFTER = 'def greet(name):\n    return f"Hello, {name}!"\n';

function fixture(agent: string, name: string, values: { repo: string; transcript?: string }): string {
  return readFileSync(join(AGENTS_DIR, agent, name), 'utf8')
    .replaceAll('__REPO__', values.repo)
    .replaceAll('__TRANSCRIPT__', values.transcript ?? join(values.repo, 'no-transcript.jsonl'));
}

function transcriptCopy(agent: string, name = 'transcript.jsonl', target = join(tempDir('agent-transcripts-'), name)): string {
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(join(AGENTS_DIR, agent, name), target);
  return target;
}

/** The command line tracer wrote for `tracer hook <agent> <event>`, wherever the file keeps it. */
function commandIn(file: string, agent: string, event: string): string {
  const found: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string' && value.endsWith(` hook ${agent} ${event}`)) found.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (typeof value === 'object' && value !== null) Object.values(value).forEach(walk);
  };
  walk(JSON.parse(readFileSync(file, 'utf8')));
  assert.is(found.length, 1, `one tracer command for ${agent} ${event} in ${file}`);
  return found[0]!;
}

interface Run {
  stdout: string;
}

function run(command: string, args: string[], options: { cwd: string; home: string; input: string; env?: Record<string, string> }): Run {
  const result = spawnSync(command, args, {
    cwd: options.cwd,
    input: options.input,
    encoding: 'utf8',
    env: { ...cleanEnv(), TRACER_HOME: options.home, ...options.env },
  });
  assert.is(result.status, 0, `${command} ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return { stdout: result.stdout };
}

/** Through the shell, as the agents run their hook commands: tracer prints nothing. */
async function runShell(
  command: string,
  options: { cwd: string; home: string; input: string; env?: Record<string, string> },
): Promise<void> {
  assert.is(run('sh', ['-c', command], options).stdout, '', 'a hook prints nothing');
  await spoolFolded(options.home);
}

function commit(repo: string, home: string, message: string): string {
  const env = {
    GIT_AUTHOR_NAME: 'Test',
    GIT_AUTHOR_EMAIL: 't@example.com',
    GIT_COMMITTER_NAME: 'Test',
    GIT_COMMITTER_EMAIL: 't@example.com',
  };
  run('git', ['add', '-A'], { cwd: repo, home, input: '', env });
  run('git', ['commit', '-q', '-m', message], { cwd: repo, home, input: '', env });
  // git's hooks fold in the background: what follows reads tracer's files, as a tracer command would after folding first.
  settleSpool(home);
  return spawnSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).stdout.trim();
}

async function init(box: ReturnType<typeof sandbox>, agent: string) {
  const first = await box.run(['init', '--agents', agent]);
  assert.is(first.code, 0, first.stderr);
  assert.match(first.stdout, new RegExp(`^  ${agent}\\s+\\S+\\s+added$`, 'm'));
  return first;
}

/** A second run changes no byte of what the first one wrote, and says so. */
async function initAgain(box: ReturnType<typeof sandbox>, agent: string, paths: string[]) {
  const before = paths.map((path) => readFileSync(path, 'utf8'));
  const again = await box.run(['init', '--agents', agent]);
  assert.is(again.code, 0, again.stderr);
  assert.match(again.stdout, new RegExp(`^  ${agent}\\s+\\S+\\s+unchanged$`, 'm'));
  assert.equal(
    paths.map((path) => readFileSync(path, 'utf8')),
    before,
  );
}

async function uninstall(box: ReturnType<typeof sandbox>, agent: string) {
  const result = await box.run(['init', '--uninstall', '--agents', agent]);
  assert.is(result.code, 0, result.stderr);
  assert.match(result.stdout, new RegExp(`^  ${agent}\\s+\\S+\\s+(removed|restored|updated)$`, 'm'));
}

/** greet.py committed as BEFORE, then the agent's edit on disk (the hook runs after the tool wrote it). */
function edited(repo: string, home: string): void {
  writeFileSync(join(repo, 'greet.py'), BEFORE);
  commit(repo, home, 'greet');
  writeFileSync(join(repo, 'greet.py'), AFTER);
}

/** After the commit, the ledger is strict-valid and its AI lines of greet.py name the agent's conversation. */
function assertAttributed(repo: string, home: string, agent: string, conversation: string, model?: string): void {
  const commitId = commit(repo, home, 'agent edit');
  const dir = projectDir(home);
  const errors = existsSync(join(dir, 'hook-errors.log')) ? readFileSync(join(dir, 'hook-errors.log'), 'utf8') : '';
  assert.is(errors, '', 'no hook failure');
  const ledgers = readJsonl(join(dir, 'ledgers.jsonl'));
  for (const ledger of ledgers) assertValidLedger(ledger);
  const ledger = ledgers.filter((row) => row.commit === commitId).at(-1);
  assert.ok(ledger, `a ledger for ${commitId}`);
  const file = ledger!.record.files.find((entry: any) => entry.path === 'greet.py');
  assert.ok(file, 'greet.py is in the ledger');
  const ai = file.conversations.find((entry: any) => entry.contributor?.type === 'ai');
  assert.ok(ai, `AI lines in ${JSON.stringify(file)}`);
  assert.is(ai.url, `${agent}://session/${encodeURIComponent(conversation)}`);
  assert.equal(
    ai.ranges.map((range: any) => [range.start_line, range.end_line]),
    [[2, 2]],
  );
  if (model) assert.is(ai.contributor.model_id.endsWith(model), true, `${ai.contributor.model_id} names ${model}`);
  assert.is(ledger!.record.metadata['dev.tracer'].lines.ai, 1);
  const trace = readJsonl(join(dir, 'traces.jsonl')).find((row) => row.files);
  assert.is(trace!.agent, agent);
}

function writeJson(path: string, value: unknown): string {
  mkdirSync(dirname(path), { recursive: true });
  const text = `${JSON.stringify(value, null, 2)}\n`;
  writeFileSync(path, text);
  return text;
}

// Claude-style settings files: the user's own hooks and settings are there first, and come back byte for byte.

for (const { agent, file, event, fixtureName, conversation, model, transcript } of [
  {
    agent: 'gemini',
    file: '.gemini/settings.json',
    event: 'AfterTool',
    fixtureName: 'AfterTool.replace.json',
    conversation: '5c0d3f7e-2b9a-4c1e-9f3a-7d2e1b6a4c80',
    // The model of the latest Gemini message of the (captured) chat recording.
    model: 'gemini-2.5-flash',
    transcript: true,
  },
  {
    agent: 'qwen',
    file: '.qwen/settings.json',
    event: 'PostToolUse',
    fixtureName: 'PostToolUse.edit.json',
    conversation: 'f3a9c1e2-7b4d-4a8e-9c6f-2e1d0b7a5c39',
    model: 'qwen3-coder-plus',
    transcript: true,
  },
  {
    agent: 'droid',
    file: '.factory/hooks.json',
    event: 'PostToolUse',
    fixtureName: 'PostToolUse.Edit.json',
    conversation: 'b6f1c2d4-8e3a-4f7b-a9c0-5d2e7f1a3b64',
    // A captured Droid transcript names no model: its <session>.settings.json beside it does.
    model: 'custom:BYOK-GPT-5-MINI-0',
    transcript: true,
  },
]) {
  test(`${agent}: init installs into ${file} beside the user's hooks, an edit becomes AI lines naming ${agent}, uninstall restores the file`, async () => {
    const box = sandbox();
    const { repo, home } = box;
    const path = join(repo, file);
    const original = writeJson(path, {
      theme: 'dark',
      hooks: { [event]: [{ matcher: 'run_shell_command', hooks: [{ type: 'command', command: './my-hook.sh' }] }] },
    });
    await init(box, agent);
    const installed = JSON.parse(readFileSync(path, 'utf8'));
    assert.is(installed.theme, 'dark');
    assert.is(installed.hooks[event][0].hooks[0].command, './my-hook.sh', "the user's entry stays first");
    await initAgain(box, agent, [path]);

    edited(repo, home);
    const transcriptPath = transcript ? transcriptCopy(agent) : undefined;
    if (agent === 'droid') transcriptCopy(agent, 'transcript.settings.json', join(dirname(transcriptPath!), 'transcript.settings.json'));
    await runShell(commandIn(path, agent, event), {
      cwd: repo,
      home,
      input: fixture(agent, fixtureName, { repo, transcript: transcriptPath }),
    });
    assertAttributed(repo, home, agent, conversation, model);

    await uninstall(box, agent);
    assert.is(readFileSync(path, 'utf8'), original, 'the file is back as it was');
  });
}

test('gemini: AfterAgent records prompt_response as the summary and snapshots the JSONL chat', async () => {
  const box = sandbox();
  const { repo, home } = box;
  await init(box, 'gemini');
  const transcript = transcriptCopy('gemini');
  await runShell(commandIn(join(repo, '.gemini/settings.json'), 'gemini', 'AfterAgent'), {
    cwd: repo,
    home,
    input: fixture('gemini', 'AfterAgent.json', { repo, transcript }),
  });
  const dir = projectDir(home);
  const [summary] = readJsonl(join(dir, 'session-summaries.jsonl'));
  assert.is(summary!.summary, 'greet() now returns an f-string.');
  assert.is(summary!.conversation_url, 'gemini://session/5c0d3f7e-2b9a-4c1e-9f3a-7d2e1b6a4c80');
  const [snapshot] = readJsonl(join(dir, 'conversations.jsonl'));
  assert.is(snapshot!.size, statSync(transcript).size);
});

test("copilot: its own .github/hooks/tracer.json, toolArgs as a JSON string, the model from the session's events.jsonl", async () => {
  const box = sandbox();
  const { repo, home } = box;
  const userHome = tempDir('copilot-home-');
  const mine = writeJson(join(repo, '.github/hooks/mine.json'), {
    version: 1,
    hooks: { postToolUse: [{ type: 'command', bash: './audit.sh' }] },
  });
  await init(box, 'copilot');
  const path = join(repo, '.github/hooks/tracer.json');
  const file = JSON.parse(readFileSync(path, 'utf8'));
  assert.is(file.version, 1);
  assert.equal(Object.keys(file.hooks), ['sessionStart', 'userPromptSubmitted', 'postToolUse', 'agentStop', 'sessionEnd']);
  assert.is(file.hooks.postToolUse[0].type, 'command');
  await initAgain(box, 'copilot', [path]);

  const sessionId = '8aa950ec-41f2-4a4b-9c55-0d7b2f9e6a13';
  transcriptCopy('copilot', 'events.jsonl', join(userHome, '.copilot/session-state', sessionId, 'events.jsonl'));
  edited(repo, home);
  const postToolUse = commandIn(path, 'copilot', 'postToolUse');
  const env = { HOME: userHome };
  // A read reaches the hook too (Copilot hooks have no matcher): it records nothing.
  await runShell(postToolUse, { cwd: repo, home, env, input: fixture('copilot', 'postToolUse.view.json', { repo }) });
  await runShell(postToolUse, { cwd: repo, home, env, input: fixture('copilot', 'postToolUse.edit.json', { repo }) });
  assert.is(readJsonl(join(projectDir(home), 'traces.jsonl')).length, 1, 'one row: the edit');
  // The captured events.jsonl names the model in session.model_change.
  assertAttributed(repo, home, 'copilot', sessionId, 'gpt-4.1');

  // A subagent's stop names no transcript; the session's stop does, and its last assistant message is the summary.
  const agentStop = commandIn(path, 'copilot', 'agentStop');
  await runShell(agentStop, { cwd: repo, home, env, input: fixture('copilot', 'agentStop.subagent.json', { repo }) });
  const transcript = transcriptCopy('copilot', 'events.jsonl');
  await runShell(agentStop, { cwd: repo, home, env, input: fixture('copilot', 'agentStop.json', { repo, transcript }) });
  const summaries = readJsonl(join(projectDir(home), 'session-summaries.jsonl'));
  assert.equal(
    summaries.map((row) => [row.conversation_url, row.summary]),
    [[`copilot://session/${sessionId}`, "I'll create a hello world file for you."]],
  );

  // The user's entry added to tracer's file survives uninstall; tracer's go.
  const withMine = JSON.parse(readFileSync(path, 'utf8'));
  withMine.hooks.postToolUse.push({ type: 'command', bash: './notify.sh' });
  writeJson(path, withMine);
  await uninstall(box, 'copilot');
  assert.equal(JSON.parse(readFileSync(path, 'utf8')), { version: 1, hooks: { postToolUse: [{ type: 'command', bash: './notify.sh' }] } });
  assert.is(readFileSync(join(repo, '.github/hooks/mine.json'), 'utf8'), mine);
});

test('copilot: a release that sends postToolUse without sessionId still records the edit, under a session derived from the folder and the day', async () => {
  const box = sandbox();
  const { repo, home } = box;
  await init(box, 'copilot');
  edited(repo, home);
  const postToolUse = commandIn(join(repo, '.github/hooks/tracer.json'), 'copilot', 'postToolUse');
  const input = fixture('copilot', 'postToolUse.edit.nosession.json', { repo });
  await runShell(postToolUse, { cwd: repo, home, input });
  const [first] = readJsonl(join(projectDir(home), 'traces.jsonl'));
  assert.match(first!.conversation_id, /^copilot-[0-9a-f]{16}$/, 'recorded, no missing_field');
  assertAttributed(repo, home, 'copilot', first!.conversation_id);
  // The same folder and day is the same session; the next day (by the payload's own timestamp) another one.
  const nextDay = JSON.parse(input);
  nextDay.timestamp += 24 * 60 * 60 * 1000;
  await runShell(postToolUse, { cwd: repo, home, input });
  await runShell(postToolUse, { cwd: repo, home, input: JSON.stringify(nextDay) });
  const ids = readJsonl(join(projectDir(home), 'traces.jsonl')).map((row) => row.conversation_id);
  assert.is(ids.length, 3);
  assert.is(ids[1], ids[0]);
  assert.is.not(ids[2], ids[0]);
});

test('windsurf: post_write_code without cwd finds the project from the file, model_name is the model', async () => {
  const box = sandbox();
  const { repo, home } = box;
  const path = join(repo, '.windsurf/hooks.json');
  const original = writeJson(path, { hooks: { post_run_command: [{ command: './lint.sh', show_output: true }] } });
  await init(box, 'windsurf');
  assert.is(JSON.parse(readFileSync(path, 'utf8')).hooks.post_write_code[0].show_output, false);
  await initAgain(box, 'windsurf', [path]);
  edited(repo, home);
  // Run from another folder: only the payload's file path says where the project is.
  const elsewhere = tempDir('windsurf-cwd-');
  await runShell(commandIn(path, 'windsurf', 'pre_user_prompt'), {
    cwd: elsewhere,
    home,
    input: fixture('windsurf', 'pre_user_prompt.json', { repo }),
  });
  await runShell(commandIn(path, 'windsurf', 'post_write_code'), {
    cwd: elsewhere,
    home,
    input: fixture('windsurf', 'post_write_code.json', { repo }),
  });
  assertAttributed(repo, home, 'windsurf', '9d41a7c2e0b84f6e');
  await uninstall(box, 'windsurf');
  assert.is(readFileSync(path, 'utf8'), original);
});

test('windsurf: post_cascade_response_with_transcript snapshots the JSONL transcript; its last planner response is the summary', async () => {
  const box = sandbox();
  const { repo, home } = box;
  await init(box, 'windsurf');
  edited(repo, home);
  const transcript = transcriptCopy('windsurf');
  await runShell(commandIn(join(repo, '.windsurf/hooks.json'), 'windsurf', 'post_cascade_response_with_transcript'), {
    cwd: repo,
    home,
    input: fixture('windsurf', 'post_cascade_response_with_transcript.json', { repo, transcript }),
  });
  const dir = projectDir(home);
  assert.is(existsSync(join(dir, 'hook-errors.log')), false);
  const [snapshot] = readJsonl(join(dir, 'conversations.jsonl'));
  assert.is(snapshot!.size, statSync(transcript).size);
  const [summary] = readJsonl(join(dir, 'session-summaries.jsonl'));
  assert.is(summary!.conversation_url, 'windsurf://session/9d41a7c2e0b84f6e');
  assert.match(summary!.summary, /^Called several tools to explore your workspace:/);
});

test("windsurf: without tool_info.transcript_path, the transcript is Windsurf's own ~/.windsurf/transcripts/<trajectory_id>.jsonl", async () => {
  const box = sandbox();
  const { repo, home } = box;
  await init(box, 'windsurf');
  const userHome = tempDir('windsurf-home-');
  const saved = transcriptCopy('windsurf', 'transcript.jsonl', join(userHome, '.windsurf/transcripts/9d41a7c2e0b84f6e.jsonl'));
  const payload = JSON.parse(fixture('windsurf', 'post_cascade_response_with_transcript.json', { repo }));
  delete payload.tool_info.transcript_path;
  // Windsurf payloads have no cwd: the hook runs in the workspace.
  await runShell(commandIn(join(repo, '.windsurf/hooks.json'), 'windsurf', 'post_cascade_response_with_transcript'), {
    cwd: repo,
    home,
    env: { HOME: userHome },
    input: JSON.stringify(payload),
  });
  const [snapshot] = readJsonl(join(projectDir(home), 'conversations.jsonl'));
  assert.is(snapshot!.size, statSync(saved).size);
});

test("kiro: .kiro/hooks/tracer.json in Kiro CLI 3's versioned schema, fs_write edits (also deferred, batched) under a derived stable session", async () => {
  const box = sandbox();
  const { repo, home } = box;
  const installed = await init(box, 'kiro');
  assert.match(installed.stdout, /Note for kiro: Kiro CLI 3 runs this file; Kiro CLI 2 reads hooks only from its agent configurations/);
  const path = join(repo, '.kiro/hooks/tracer.json');
  const file = JSON.parse(readFileSync(path, 'utf8'));
  // The shape of kirodotdev/Kiro#10344's and #10346's hook files (kiro.dev/docs/cli/v3/hooks).
  assert.is(file.version, 'v1');
  assert.equal(
    file.hooks.map((hook: any) => [hook.name, hook.trigger, hook.matcher, hook.action.type]),
    [
      ['tracer-kiro-user-prompt-submit', 'UserPromptSubmit', undefined, 'command'],
      ['tracer-kiro-post-tool-use', 'PostToolUse', 'fs_write|write', 'command'],
      ['tracer-kiro-stop', 'Stop', undefined, 'command'],
    ],
  );
  await initAgain(box, 'kiro', [path]);
  edited(repo, home);
  const command = commandIn(path, 'kiro', 'PostToolUse');
  await runShell(command, { cwd: repo, home, input: fixture('kiro', 'postToolUse.fs_write.json', { repo }) });
  const deferredRepo = repo;
  await runShell(command, { cwd: repo, home, input: fixture('kiro', 'postToolUse.deferred.json', { repo: deferredRepo }) });
  const traces = readJsonl(join(projectDir(home), 'traces.jsonl'));
  assert.is(traces.length, 2);
  assert.match(traces[0]!.conversation_id, /^kiro-[0-9a-f]{16}$/);
  assert.is(traces[1]!.conversation_id, traces[0]!.conversation_id, 'the same session for every event');
  assert.equal(
    traces[1]!.files.map((file: any) => file.path),
    ['greet.py', 'NOTES.md'],
  );
  assertAttributed(repo, home, 'kiro', traces[0]!.conversation_id);
  const mine = { name: 'done', trigger: 'Stop', action: { type: 'command', command: './done.sh' } };
  const withMine = JSON.parse(readFileSync(path, 'utf8'));
  withMine.hooks.push(mine);
  writeJson(path, withMine);
  await uninstall(box, 'kiro');
  assert.equal(JSON.parse(readFileSync(path, 'utf8')), { version: 'v1', hooks: [mine] });
});

test("kiro: Kiro CLI 2's stop (captured in kirodotdev/Kiro#8430, no session_id) gives the turn's summary under the derived session", async () => {
  const box = sandbox();
  const { repo, home } = box;
  await init(box, 'kiro');
  await runShell(commandIn(join(repo, '.kiro/hooks/tracer.json'), 'kiro', 'Stop'), {
    cwd: repo,
    home,
    input: fixture('kiro', 'stop.v2.json', { repo }),
  });
  const summaries = readJsonl(join(projectDir(home), 'session-summaries.jsonl'));
  assert.is(summaries.length, 1);
  assert.match(summaries[0]!.conversation_url, /^kiro:\/\/session\/kiro-[0-9a-f]{16}$/);
  assert.is(summaries[0]!.summary, 'Output: `repro`');
});

/** .kiro/hooks/tracer.json as tracer wrote it before Kiro CLI 3's schema: a `{hooks: {event: [...]}}` no Kiro reads. */
function oldKiroFile(repo: string, extra: Record<string, unknown[]> = {}): string {
  const old = (event: string) => `/usr/bin/node /opt/tracer/bin/tracer.js hook kiro ${event}`;
  return writeJson(join(repo, '.kiro/hooks/tracer.json'), {
    hooks: {
      agentSpawn: [{ command: old('agentSpawn') }],
      userPromptSubmit: [{ command: old('userPromptSubmit') }],
      postToolUse: [{ matcher: 'fs_write', command: old('postToolUse') }],
      stop: [{ command: old('stop') }],
      ...extra,
    },
  });
}

test('kiro: init migrates the file an older tracer wrote in the old shape; uninstall then removes it', async () => {
  const box = sandbox();
  const { repo } = box;
  oldKiroFile(repo);
  const path = join(repo, '.kiro/hooks/tracer.json');
  const result = await box.run(['init', '--agents', 'kiro']);
  assert.is(result.code, 0, result.stderr);
  assert.match(result.stdout, /^ {2}kiro\s+\S+\s+updated$/m);
  const file = JSON.parse(readFileSync(path, 'utf8'));
  assert.equal(Object.keys(file), ['version', 'hooks']);
  assert.equal(
    file.hooks.map((hook: any) => hook.trigger),
    ['UserPromptSubmit', 'PostToolUse', 'Stop'],
  );
  assert.not.match(readFileSync(path, 'utf8'), /agentSpawn|\/opt\/tracer/, 'nothing of the old shape is left');
  await initAgain(box, 'kiro', [path]);
  await uninstall(box, 'kiro');
  assert.not.ok(existsSync(path));
});

test("kiro: an old-shape file holding someone else's entries stops init with agent_config_invalid and stays as it was", async () => {
  const box = sandbox();
  const text = oldKiroFile(box.repo, { preToolUse: [{ matcher: 'execute_bash', command: './guard.sh' }] });
  const result = await box.run(['init', '--agents', 'kiro']);
  assert.is.not(result.code, 0);
  assert.match(result.stderr, /agent_config_invalid/);
  assert.match(result.stderr, /preToolUse/);
  assert.is(readFileSync(join(box.repo, '.kiro/hooks/tracer.json'), 'utf8'), text);
});

test("kiro: a payload that names its session (Kiro CLI 3's, captured in kirodotdev/Kiro#10308) keeps it: nothing is derived", async () => {
  const box = sandbox();
  const { repo, home } = box;
  await init(box, 'kiro');
  await runShell(commandIn(join(repo, '.kiro/hooks/tracer.json'), 'kiro', 'UserPromptSubmit'), {
    cwd: repo,
    home,
    input: fixture('kiro', 'UserPromptSubmit.v3.json', { repo }),
  });
  const [row] = readJsonl(join(projectDir(home), 'traces.jsonl'));
  assert.is(row!.conversation_id, 'sess_5e748cf0-2069-4448-b1f7-35a1e42ad9b3');
  assert.is(row!.prompt_chars, 0, 'that release sends the prompt empty');
});

test("cline: executable hook scripts in .clinerules/hooks answer {cancel: false}; the user's own scripts stay", async () => {
  const box = sandbox();
  const { repo, home } = box;
  const dir = join(repo, '.clinerules/hooks');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'PreToolUse'), '#!/bin/sh\necho \'{"cancel":false}\'\n', { mode: 0o755 });
  await init(box, 'cline');
  const script = join(dir, 'PostToolUse');
  assert.ok((statSync(script).mode & 0o111) !== 0, 'executable');
  await initAgain(box, 'cline', [script, join(dir, 'TaskComplete')]);
  edited(repo, home);
  const answer = run(script, [], { cwd: repo, home, input: fixture('cline', 'PostToolUse.replace_in_file.json', { repo }) });
  assert.equal(JSON.parse(answer.stdout), { cancel: false });
  assertAttributed(repo, home, 'cline', '1768904098002', 'claude-sonnet-4-5');
  await uninstall(box, 'cline');
  assert.not.ok(existsSync(script));
  assert.ok(existsSync(join(dir, 'PreToolUse')), "the user's hook stays");
});

test("cline: the SDK-based releases' payloads (tool_result with editor or apply_patch, tool_call, agent_end) through the installed scripts", async () => {
  const box = sandbox();
  const { repo, home } = box;
  await init(box, 'cline');
  const dir = join(repo, '.clinerules/hooks');
  edited(repo, home);
  const conversation = 'conv_01k6d3q8v2x7m4n9p5r1s0t2wy';
  // A PreToolUse payload comes before the tool ran: nothing to record, and no error.
  run(join(dir, 'PostToolUse'), [], { cwd: repo, home, input: fixture('cline', 'PreToolUse.tool_call.json', { repo }) });
  const answer = run(join(dir, 'PostToolUse'), [], {
    cwd: repo,
    home,
    input: fixture('cline', 'PostToolUse.tool_result.editor.json', { repo }),
  });
  assert.equal(JSON.parse(answer.stdout), { cancel: false });
  await spoolFolded(home);
  assert.is(readJsonl(join(projectDir(home), 'traces.jsonl')).length, 1, 'one row: the edit');
  assertAttributed(repo, home, 'cline', conversation);

  const patched = JSON.parse(fixture('cline', 'PostToolUse.tool_result.editor.json', { repo }));
  patched.tool_result = {
    ...patched.tool_result,
    name: 'apply_patch',
    input: { input: '*** Begin Patch\n*** Add File: NOTES.md\n+# Notes\n+The greeting uses an f-string.\n*** End Patch' },
  };
  writeFileSync(join(repo, 'NOTES.md'), '# Notes\nThe greeting uses an f-string.\n');
  run(join(dir, 'PostToolUse'), [], { cwd: repo, home, input: JSON.stringify(patched) });
  const ended = {
    ...patched,
    hookName: 'agent_end',
    turn: { outputText: 'Greeting fixed.', status: 'completed' },
    taskComplete: { taskMetadata: {} },
  };
  delete ended.tool_result;
  delete ended.postToolUse;
  run(join(dir, 'TaskComplete'), [], { cwd: repo, home, input: JSON.stringify(ended) });
  await spoolFolded(home);
  const traces = readJsonl(join(projectDir(home), 'traces.jsonl'));
  assert.equal(
    traces.at(-2)!.files.map((file: any) => file.path),
    ['NOTES.md'],
  );
  const summaries = readJsonl(join(projectDir(home), 'session-summaries.jsonl'));
  assert.equal(
    summaries.map((row) => [row.conversation_url, row.summary]),
    [[`cline://session/${conversation}`, 'Greeting fixed.']],
  );
});

test("cline: a user's own hook file of an event's name is never overwritten", async () => {
  const box = sandbox();
  const dir = join(box.repo, '.clinerules/hooks');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'PostToolUse'), '#!/bin/sh\necho mine\n', { mode: 0o755 });
  const result = await box.run(['init', '--agents', 'cline']);
  assert.is.not(result.code, 0);
  assert.match(result.stderr, /agent_hook_exists/);
  assert.is(readFileSync(join(dir, 'PostToolUse'), 'utf8'), '#!/bin/sh\necho mine\n');
  assert.not.ok(existsSync(join(dir, 'TaskStart')), 'nothing half-installed');
});

test("goose: an Open Plugins plugin in .agents/plugins/tracer; working_dir and a suffix-matched edit tool; Stop's message is the summary", async () => {
  const box = sandbox();
  const { repo, home } = box;
  const mine = writeJson(join(repo, '.agents/plugins/mine/plugin.json'), { name: 'mine', version: '0.1.0' });
  await init(box, 'goose');
  const hooks = join(repo, '.agents/plugins/tracer/hooks/hooks.json');
  assert.is(JSON.parse(readFileSync(join(repo, '.agents/plugins/tracer/plugin.json'), 'utf8')).name, 'tracer');
  await initAgain(box, 'goose', [hooks]);
  edited(repo, home);
  await runShell(commandIn(hooks, 'goose', 'PostToolUse'), {
    cwd: tempDir('goose-cwd-'),
    home,
    input: fixture('goose', 'PostToolUse.edit.json', { repo }),
  });
  assertAttributed(repo, home, 'goose', '20260120_3');
  await runShell(commandIn(hooks, 'goose', 'Stop'), { cwd: repo, home, input: fixture('goose', 'Stop.json', { repo }) });
  assert.equal(
    readJsonl(join(projectDir(home), 'session-summaries.jsonl')).map((row) => row.summary),
    ['greet() now returns an f-string.'],
  );
  await uninstall(box, 'goose');
  assert.not.ok(existsSync(join(repo, '.agents/plugins/tracer')), "tracer's plugin folder is gone");
  assert.is(readFileSync(join(repo, '.agents/plugins/mine/plugin.json'), 'utf8'), mine);
});

test("opencode: the plugin in .opencode/plugins passes tool.execute.after to tracer; the user's plugins stay", async () => {
  const box = sandbox();
  const { repo, home } = box;
  mkdirSync(join(repo, '.opencode/plugins'), { recursive: true });
  writeFileSync(join(repo, '.opencode/plugins/mine.js'), 'export const Mine = async () => ({});\n');
  await init(box, 'opencode');
  const plugin = join(repo, '.opencode/plugins/tracer.js');
  await initAgain(box, 'opencode', [plugin]);
  edited(repo, home);
  // What OpenCode does: load the plugin, then call its hooks with (input, output).
  const { input, output } = JSON.parse(fixture('opencode', 'tool.execute.after.json', { repo }));
  const script = `
    const { TracerPlugin } = await import(${JSON.stringify(pathToFileURL(plugin).href)});
    const hooks = await TracerPlugin({ directory: ${JSON.stringify(repo)}, worktree: ${JSON.stringify(repo)} });
    const input = ${JSON.stringify(input)};
    await hooks['chat.params']({ sessionID: input.sessionID, model: { id: 'claude-sonnet-4-5' } }, {});
    await hooks['tool.execute.before']({ tool: input.tool, sessionID: input.sessionID, callID: input.callID }, { args: input.args });
    await hooks['tool.execute.after']({ tool: input.tool, sessionID: input.sessionID, callID: input.callID }, ${JSON.stringify(output)});
    await hooks.event({ event: { type: 'file.edited', properties: { file: 'greet.py' } } });
  `;
  run(process.execPath, ['--input-type=module', '-e', script], { cwd: repo, home, input: '' });
  await spoolFolded(home);
  assert.is(readJsonl(join(projectDir(home), 'traces.jsonl')).length, 1, 'file.edited adds no row');
  assertAttributed(repo, home, 'opencode', 'ses_4a1f2c9e8d7bffe1', 'claude-sonnet-4-5');
  await uninstall(box, 'opencode');
  assert.not.ok(existsSync(plugin));
  assert.ok(existsSync(join(repo, '.opencode/plugins/mine.js')));
});

test('unknown agent ids keep the unknown_agent error, for init and for the hook', async () => {
  const box = sandbox();
  const result = await box.run(['init', '--agents', 'gemini,amp']);
  assert.is(result.code, 2);
  assert.match(result.stderr, /unknown_agent/);
  assert.not.ok(existsSync(join(box.repo, '.gemini')), 'nothing installed');
  const hook = await box.run(['hook', 'amp', 'PostToolUse'], { input: '{}' });
  assert.is(hook.code, 0);
  assert.match(
    readFileSync(join(box.home, 'hook-errors.log'), 'utf8'),
    /"code":"unknown_agent"/,
    'logged where tracer keeps failures outside a project',
  );
});

test.run();
