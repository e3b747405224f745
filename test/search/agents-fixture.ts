// A repository whose lines were written through the real hooks of three agents
// (Claude Code, Codex, Gemini): each agent's own payload (test/fixtures/agents)
// fed to `tracer hook` as the agent runs it, each with a transcript in the
// agent's own format that holds the prompt, the assistant's words and the tool
// call that wrote the lines; then committed through the installed git hook.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as assert from 'uvu/assert';
import { cleanEnv, sandbox, settleSpool, tempDir } from '../helpers/cli.js';
import { hook } from '../capture/hook-fixtures.js';

const AGENTS_DIR = fileURLToPath(new URL('../fixtures/agents/', import.meta.url));

export const CLAUDE_SESSION = 'b23e5d8a-855f-44c5-95f0-075485a6ffcf';
export const CODEX_SESSION = '019a2f4e-7c1d-7b90-a3e5-6f2d8c0b1a44';
export const GEMINI_SESSION = '5c0d3f7e-2b9a-4c1e-9f3a-7d2e1b6a4c80';
/** A GitHub token the person pasted into a prompt: redaction stores its placeholder. */
export const SECRET = `ghp_${'Q1w2E3r4T5'.repeat(3)}y6U7i8`;

export const PROMPTS = {
  claude: `Loosen the numpy pin so the backoff experiments install; my token is ${SECRET}`,
  codex: 'Write migration notes for the reverse proxy and bump the version',
  gemini: 'Make greet use an f-string with a capital Hello',
};
export const ASSISTANT = {
  claudeBefore: 'I will drop the upper bound on numpy in requirements.txt.',
  claudeAfter: 'Done: numpy is no longer capped below 2.0.',
  codexBefore: 'I will add NOTES.md with the proxy step and bump VERSION.',
  codexAfter: 'Both files are written.',
  geminiBefore: 'I will switch greet to an f-string.',
  geminiAfter: 'greet() now returns an f-string.',
};

function fixture(agent: string, name: string, values: Record<string, string>): Record<string, unknown> {
  let text = readFileSync(join(AGENTS_DIR, agent, name), 'utf8');
  for (const [key, value] of Object.entries(values)) text = text.replaceAll(key, value);
  return JSON.parse(text) as Record<string, unknown>;
}

function jsonl(rows: unknown[]): string {
  return `${rows.map((row) => JSON.stringify(row)).join('\n')}\n`;
}

export function commit(repo: string, home: string, message: string): string {
  const env = {
    ...cleanEnv(),
    TRACER_HOME: home,
    GIT_AUTHOR_NAME: 'Alice Example',
    GIT_AUTHOR_EMAIL: 'alice@example.com',
    GIT_COMMITTER_NAME: 'Alice Example',
    GIT_COMMITTER_EMAIL: 'alice@example.com',
  };
  for (const args of [
    ['add', '-A'],
    ['commit', '-q', '-m', message],
  ]) {
    const result = spawnSync('git', args, { cwd: repo, env, encoding: 'utf8' });
    assert.is(result.status, 0, result.stderr);
  }
  // git's hooks spool the commit; its ledger is made by the fold they start (tests read the store directly).
  settleSpool(home);
  return spawnSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).stdout.trim();
}

export async function threeAgents() {
  const box = sandbox();
  const { repo, home } = box;
  const init = await box.run(['init', '--agents', 'claude-code,codex,gemini']);
  assert.is(init.code, 0, init.stderr);
  const options = { cwd: repo, home };
  const transcripts = tempDir('search-transcripts-');

  // The files as they were before the agents touched them.
  const requirements = readFileSync(join(AGENTS_DIR, 'claude-code', 'requirements.before.txt'), 'utf8');
  writeFileSync(join(repo, 'requirements.txt'), requirements);
  writeFileSync(join(repo, 'VERSION'), '1.0.0\n');
  writeFileSync(join(repo, 'greet.py'), 'def greet(name):\n    return "hello " + name\n');
  const base = commit(repo, home, 'before the agents');

  // Claude Code: an Edit of requirements.txt.
  const claudeTranscript = join(transcripts, `${CLAUDE_SESSION}.jsonl`);
  const claudeRow = (type: string, content: unknown, ts: string, extra: Record<string, unknown> = {}) => ({
    type,
    sessionId: CLAUDE_SESSION,
    cwd: repo,
    uuid: `${type}-${ts}`,
    timestamp: ts,
    message: type === 'user' ? { role: 'user', content } : { model: 'claude-sonnet-4-5-20250929', role: 'assistant', content },
    ...extra,
  });
  writeFileSync(
    claudeTranscript,
    jsonl([
      claudeRow('user', PROMPTS.claude, '2026-01-10T10:00:00.000Z'),
      claudeRow('assistant', [{ type: 'text', text: ASSISTANT.claudeBefore }], '2026-01-10T10:00:05.000Z'),
      claudeRow(
        'assistant',
        [
          {
            type: 'tool_use',
            id: 'toolu_1',
            name: 'Edit',
            input: { file_path: join(repo, 'requirements.txt'), old_string: 'numpy>=1.21.0,<2.0.0', new_string: 'numpy>=1.21.0' },
          },
        ],
        '2026-01-10T10:00:06.000Z',
      ),
      claudeRow('user', [{ tool_use_id: 'toolu_1', type: 'tool_result', content: 'ok' }], '2026-01-10T10:00:07.000Z'),
      claudeRow('assistant', [{ type: 'text', text: ASSISTANT.claudeAfter }], '2026-01-10T10:00:08.000Z'),
    ]),
  );
  writeFileSync(join(repo, 'requirements.txt'), requirements.replace('numpy>=1.21.0,<2.0.0', 'numpy>=1.21.0'));
  const edit = fixture('claude-code', 'PostToolUse.Edit.json', { __REPO__: repo, __TRANSCRIPT__: claudeTranscript });
  await hook('claude-code', 'PostToolUse', JSON.stringify(edit), options);
  const stop = fixture('claude-code', 'Stop.json', { __REPO__: repo, __TRANSCRIPT__: claudeTranscript });
  await hook('claude-code', 'Stop', JSON.stringify({ ...stop, session_id: CLAUDE_SESSION, transcript_path: claudeTranscript }), options);

  // Codex: apply_patch through its shell tool.
  const codexTranscript = join(transcripts, 'rollout-codex.jsonl');
  const patch =
    '*** Begin Patch\n*** Add File: NOTES.md\n+# Migration notes\n+\n+- Move the reverse proxy first.\n*** Update File: VERSION\n@@\n-1.0.0\n+1.1.0\n*** End Patch\n';
  writeFileSync(
    codexTranscript,
    jsonl([
      {
        timestamp: '2026-01-11T09:00:00.000Z',
        type: 'session_meta',
        payload: { id: CODEX_SESSION, cwd: repo, originator: 'codex_cli_rs' },
      },
      { timestamp: '2026-01-11T09:00:01.000Z', type: 'turn_context', payload: { cwd: repo, model: 'gpt-5.5' } },
      {
        timestamp: '2026-01-11T09:00:02.000Z',
        type: 'response_item',
        payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: PROMPTS.codex }] },
      },
      {
        timestamp: '2026-01-11T09:00:03.000Z',
        type: 'response_item',
        payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: ASSISTANT.codexBefore }] },
      },
      {
        timestamp: '2026-01-11T09:00:04.000Z',
        type: 'response_item',
        payload: { type: 'custom_tool_call', call_id: 'call_patch', name: 'apply_patch', input: patch },
      },
      {
        timestamp: '2026-01-11T09:00:05.000Z',
        type: 'response_item',
        payload: { type: 'custom_tool_call_output', call_id: 'call_patch', output: 'Success.' },
      },
      {
        timestamp: '2026-01-11T09:00:06.000Z',
        type: 'response_item',
        payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: ASSISTANT.codexAfter }] },
      },
    ]),
  );
  writeFileSync(join(repo, 'VERSION'), '1.1.0\n');
  writeFileSync(join(repo, 'NOTES.md'), '# Migration notes\n\n- Move the reverse proxy first.\n');
  await hook('codex', 'PostToolUse', JSON.stringify(fixture('codex', 'PostToolUse.BashPatch.json', { __REPO__: repo })), options);
  await hook('codex', 'Stop', JSON.stringify(fixture('codex', 'Stop.json', { __REPO__: repo, __TRANSCRIPT__: codexTranscript })), options);

  // Gemini: a replace in greet.py.
  const geminiTranscript = join(transcripts, 'gemini-chat.jsonl');
  writeFileSync(
    geminiTranscript,
    jsonl([
      { id: 'g1', timestamp: '2026-01-12T08:00:00.000Z', type: 'user', content: PROMPTS.gemini },
      {
        id: 'g2',
        timestamp: '2026-01-12T08:00:05.000Z',
        type: 'gemini',
        content: ASSISTANT.geminiBefore,
        model: 'gemini-2.5-flash',
        toolCalls: [
          {
            id: 'replace-1',
            name: 'replace',
            args: {
              file_path: join(repo, 'greet.py'),
              old_string: '    return "hello " + name',
              new_string: '    return f"Hello, {name}!"',
            },
          },
        ],
      },
      { id: 'g3', timestamp: '2026-01-12T08:00:09.000Z', type: 'gemini', content: ASSISTANT.geminiAfter, model: 'gemini-2.5-flash' },
    ]),
  );
  writeFileSync(join(repo, 'greet.py'), 'def greet(name):\n    return f"Hello, {name}!"\n');
  await hook(
    'gemini',
    'AfterTool',
    JSON.stringify(fixture('gemini', 'AfterTool.replace.json', { __REPO__: repo, __TRANSCRIPT__: geminiTranscript })),
    options,
  );
  await hook(
    'gemini',
    'AfterAgent',
    JSON.stringify(fixture('gemini', 'AfterAgent.json', { __REPO__: repo, __TRANSCRIPT__: geminiTranscript })),
    options,
  );

  const head = commit(repo, home, 'Quarterly cleanup of pins, notes and greetings');
  return { ...box, base, head };
}
