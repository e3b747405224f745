import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { conversationTraceIds, ledgerRecordOf } from '../../src/capture/ledger/ledger-line.js';
import { cleanEnv, cleanup, sandbox, settleSpool, tempDir } from '../helpers/cli.js';
import { assertValidLedger } from './agent-trace-schema.js';
import { projectDir, readJsonl } from './hook-fixtures.js';
import { spoolFolded } from '../helpers/spool.js';

/**
 * Payloads and transcripts captured from real agents (test/fixtures/agents,
 * provenance in test/fixtures/README.md), fed through the hook commands that
 * `tracer init` installed, as the agents run them: hook → traces → commit (the
 * installed post-commit hook) → ledger, validated against the Agent Trace schema.
 */
test.after(cleanup);

const AGENTS_DIR = fileURLToPath(new URL('../fixtures/agents/', import.meta.url));

function fixture(agent: string, name: string, values: { repo: string; transcript?: string }): string {
  return readFileSync(join(AGENTS_DIR, agent, name), 'utf8')
    .replaceAll('__REPO__', values.repo)
    .replaceAll('__TRANSCRIPT__', values.transcript ?? join(values.repo, 'no-transcript.jsonl'));
}

function transcriptCopy(agent: string): string {
  const path = join(tempDir('agent-transcripts-'), 'transcript.jsonl');
  copyFileSync(join(AGENTS_DIR, agent, 'transcript.jsonl'), path);
  return path;
}

/** The command `tracer init` wrote for an agent's event, from the agent's own settings file. */
function installedCommand(repo: string, agent: 'claude-code' | 'cursor' | 'codex', event: string): string {
  const file = { 'claude-code': '.claude/settings.json', cursor: '.cursor/hooks.json', codex: '.codex/hooks.json' }[agent];
  const settings = JSON.parse(readFileSync(join(repo, file), 'utf8'));
  for (const entry of settings.hooks[event] ?? []) {
    for (const hook of agent === 'cursor' ? [entry] : entry.hooks) {
      if (typeof hook.command === 'string' && hook.command.endsWith(` hook ${agent} ${event}`)) return hook.command;
    }
  }
  throw new Error(`no tracer command for ${agent} ${event} in ${file}`);
}

/** Runs an installed hook command through the shell, as the agents do, and checks its promises. */
async function runHookCommand(command: string, payload: string, options: { cwd: string; home: string }): Promise<void> {
  const result = spawnSync('sh', ['-c', command], {
    cwd: options.cwd,
    input: payload,
    encoding: 'utf8',
    env: { ...cleanEnv(), TRACER_HOME: options.home },
  });
  assert.is(result.status, 0, `${command} exited ${result.status}: ${result.stderr}`);
  assert.is(result.stdout, '', 'a hook prints nothing');
  await spoolFolded(options.home);
}

function commit(repo: string, home: string, message: string): string {
  const env = {
    ...cleanEnv(),
    TRACER_HOME: home,
    GIT_AUTHOR_NAME: 'Test',
    GIT_AUTHOR_EMAIL: 't@example.com',
    GIT_COMMITTER_NAME: 'Test',
    GIT_COMMITTER_EMAIL: 't@example.com',
  };
  for (const args of [
    ['add', '-A'],
    ['commit', '-q', '-m', message],
  ]) {
    const result = spawnSync('git', args, { cwd: repo, env, encoding: 'utf8' });
    assert.is(result.status, 0, result.stderr);
  }
  // git's hooks fold in the background: what follows reads tracer's files, as a tracer command would after folding first.
  settleSpool(env.TRACER_HOME!);
  return spawnSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).stdout.trim();
}

function ledgerOf(home: string, commitId: string): any {
  const ledgers = readJsonl(join(projectDir(home), 'ledgers.jsonl'));
  for (const ledger of ledgers) assertValidLedger(ledger);
  const ledger = ledgers.filter((row) => row.commit === commitId).at(-1);
  assert.ok(ledger, `a ledger for ${commitId}`);
  return ledger;
}

function hookErrors(home: string): string {
  const path = join(projectDir(home), 'hook-errors.log');
  return existsSync(path) ? readFileSync(path, 'utf8') : '';
}

async function initialized(agents?: string) {
  const box = sandbox();
  const result = await box.run(agents ? ['init', '--agents', agents] : ['init']);
  assert.is(result.code, 0, result.stderr);
  return box;
}

test('Claude Code: an Edit becomes a trace with the model read from the transcript, then a valid ledger naming it', async () => {
  const { repo, home } = await initialized();
  assert.is(
    JSON.parse(readFileSync(join(repo, '.claude/settings.json'), 'utf8')).hooks.PostToolUse[0].matcher,
    'Write|Edit|MultiEdit|NotebookEdit',
  );
  const before = readFileSync(join(AGENTS_DIR, 'claude-code', 'requirements.before.txt'), 'utf8');
  writeFileSync(join(repo, 'requirements.txt'), before);
  commit(repo, home, 'requirements');
  writeFileSync(join(repo, 'requirements.txt'), before.replace('numpy>=1.21.0,<2.0.0', 'numpy>=1.21.0'));
  const transcript = transcriptCopy('claude-code');
  await runHookCommand(
    installedCommand(repo, 'claude-code', 'PostToolUse'),
    fixture('claude-code', 'PostToolUse.Edit.json', { repo, transcript }),
    {
      cwd: repo,
      home,
    },
  );
  const [trace] = readJsonl(join(projectDir(home), 'traces.jsonl'));
  assert.is(trace!.agent, 'claude-code');
  assert.is(trace!.model, 'claude-sonnet-4-5-20250929', 'the payload has no model: the transcript does');
  assert.equal(
    trace!.files[0].ranges.map((range: any) => [range.start_line, range.end_line]),
    [[2, 2]],
  );

  const commitId = commit(repo, home, 'numpy 2');
  const ledger = ledgerOf(home, commitId);
  assert.equal(ledger.trace_ids, [trace!.id]);
  const [file] = ledger.record.files;
  assert.is(file.path, 'requirements.txt');
  const [agentConversation] = file.conversations;
  assert.equal(agentConversation.contributor, { type: 'ai', model_id: 'anthropic/claude-sonnet-4-5-20250929' });
  assert.equal(
    agentConversation.ranges.map((range: any) => [range.start_line, range.end_line]),
    [[2, 2]],
  );
  assert.equal(conversationTraceIds(agentConversation), [trace!.id]);
  assert.is(hookErrors(home), '');
});

test("Claude Code: Stop's summary is the transcript's last assistant text, or last_assistant_message when given", async () => {
  const { repo, home } = await initialized();
  const transcript = transcriptCopy('claude-code');
  const stop = installedCommand(repo, 'claude-code', 'Stop');
  await runHookCommand(stop, fixture('claude-code', 'Stop.json', { repo, transcript }), { cwd: repo, home });
  const dir = projectDir(home);
  const lines = readFileSync(transcript, 'utf8').trim().split('\n');
  const last = JSON.parse(lines.at(-1)!).message.content[0].text;
  assert.equal(
    readJsonl(join(dir, 'session-summaries.jsonl')).map((row) => row.summary),
    [last],
  );
  const reported = {
    ...JSON.parse(fixture('claude-code', 'Stop.json', { repo, transcript })),
    last_assistant_message: 'Reported by the payload.',
  };
  await runHookCommand(stop, JSON.stringify(reported), { cwd: repo, home });
  assert.equal(
    readJsonl(join(dir, 'session-summaries.jsonl')).map((row) => row.summary),
    [last, 'Reported by the payload.'],
  );
});

test('Claude Code: a Stop that fired before the final message was written is snapshotted again at the next event', async () => {
  const { repo, home } = await initialized();
  const transcript = transcriptCopy('claude-code');
  const full = readFileSync(transcript, 'utf8');
  const lines = full.trim().split('\n');
  // What the transcript held when Stop fired: the final reply not flushed yet.
  writeFileSync(transcript, `${lines.slice(0, -1).join('\n')}\n`);
  const stopPayload = fixture('claude-code', 'Stop.json', { repo, transcript });
  await runHookCommand(installedCommand(repo, 'claude-code', 'Stop'), stopPayload, { cwd: repo, home });
  const dir = projectDir(home);
  assert.is(countSnapshots(dir), 1);

  writeFileSync(transcript, full);
  const next = { ...JSON.parse(stopPayload), hook_event_name: 'UserPromptSubmit', prompt: 'next' };
  delete next.stop_hook_active;
  await runHookCommand(installedCommand(repo, 'claude-code', 'UserPromptSubmit'), JSON.stringify(next), { cwd: repo, home });
  assert.is(countSnapshots(dir), 2, 'the complete transcript was snapshotted');
  const index = JSON.parse(readFileSync(join(dir, 'conversations', '_index.json'), 'utf8'));
  assert.is(index['7ee10dea-3895-4de7-b942-540c8b19b951'], sha256(full), 'the newest snapshot is the complete one');

  // Nothing is pending any more: the next event takes no further snapshot.
  await runHookCommand(installedCommand(repo, 'claude-code', 'UserPromptSubmit'), JSON.stringify(next), { cwd: repo, home });
  assert.is(countSnapshots(dir), 2);
  assert.is(hookErrors(home), '');
});

test('Cursor: afterFileEdit through the installed hook becomes a trace, then a valid ledger; the model keeps its name', async () => {
  const { repo, home } = await initialized();
  const path = join(repo, 'public/app/plugins/panel/welcome/Welcome.tsx');
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, 'const styles = {\n  title: css({\n  }),\n};\n');
  commit(repo, home, 'welcome');
  writeFileSync(path, 'const styles = {\n  title: css({\n      color: theme.colors.success.text,\n  }),\n};\n');
  const transcript = transcriptCopy('cursor');
  await runHookCommand(installedCommand(repo, 'cursor', 'afterFileEdit'), fixture('cursor', 'afterFileEdit.json', { repo, transcript }), {
    cwd: tempDir('cursor-cwd-'),
    home,
  });
  const [trace] = readJsonl(join(projectDir(home), 'traces.jsonl'));
  assert.equal(
    [trace!.agent, trace!.model, trace!.files[0].path],
    ['cursor', 'composer-2', 'public/app/plugins/panel/welcome/Welcome.tsx'],
  );
  const ledger = ledgerOf(home, commit(repo, home, 'green'));
  const conversation = ledger.record.files[0].conversations[0];
  assert.is(conversation.url, 'cursor://conversation/edc0c8f7-87cc-46cf-8ddf-b16685e7d598');
  assert.equal(conversation.contributor, { type: 'ai', model_id: 'composer-2' }, 'no provider is known for composer-2');
  assert.equal(
    conversation.ranges.map((range: any) => [range.start_line, range.end_line]),
    [[3, 3]],
  );
});

test("Cursor running Claude Code's hooks: recorded once, as Cursor's, whether or not tracer's Cursor hooks are installed", async () => {
  const path = (repo: string) => join(repo, 'public/app/plugins/panel/welcome/Welcome.tsx');
  const edit = (repo: string) => {
    mkdirSync(dirname(path(repo)), { recursive: true });
    writeFileSync(path(repo), '      color: theme.colors.success.text,\n');
  };
  // Both installed: Cursor runs its own entry and Claude Code's; only its own records.
  const both = await initialized();
  edit(both.repo);
  const payload = fixture('cursor', 'afterFileEdit.json', { repo: both.repo });
  await runHookCommand(installedCommand(both.repo, 'cursor', 'afterFileEdit'), payload, { cwd: both.repo, home: both.home });
  await runHookCommand(installedCommand(both.repo, 'claude-code', 'PostToolUse'), payload, { cwd: both.repo, home: both.home });
  assert.equal(
    readJsonl(join(projectDir(both.home), 'traces.jsonl')).map((row) => [row.agent, row.event]),
    [['cursor', 'afterFileEdit']],
  );
  // Only Claude Code's hooks installed: the Cursor edit arriving there is recorded under cursor.
  const claudeOnly = await initialized('claude-code');
  edit(claudeOnly.repo);
  await runHookCommand(
    installedCommand(claudeOnly.repo, 'claude-code', 'PostToolUse'),
    fixture('cursor', 'afterFileEdit.json', { repo: claudeOnly.repo }),
    { cwd: claudeOnly.repo, home: claudeOnly.home },
  );
  const [row] = readJsonl(join(projectDir(claudeOnly.home), 'traces.jsonl'));
  assert.equal(
    [row!.agent, row!.conversation_id, row!.files[0].path],
    ['cursor', 'edc0c8f7-87cc-46cf-8ddf-b16685e7d598', 'public/app/plugins/panel/welcome/Welcome.tsx'],
  );
});

test('Cursor: a multi-root workspace records the edit in the root that holds the file', async () => {
  const { repo, home } = await initialized();
  const other = tempDir('cursor-other-root-');
  writeFileSync(join(repo, 'Welcome.tsx'), '      color: theme.colors.success.text,\n');
  const payload = JSON.parse(fixture('cursor', 'afterFileEdit.json', { repo }));
  payload.workspace_roots = [other, repo];
  payload.file_path = join(repo, 'Welcome.tsx');
  await runHookCommand(installedCommand(repo, 'cursor', 'afterFileEdit'), JSON.stringify(payload), { cwd: other, home });
  const [trace] = readJsonl(join(projectDir(home), 'traces.jsonl'));
  assert.is(trace!.files[0].path, 'Welcome.tsx');
});

test('Cursor: afterAgentResponse gives the summary; stop snapshots the transcript without repeating it', async () => {
  const { repo, home } = await initialized();
  const transcript = transcriptCopy('cursor');
  await runHookCommand(
    installedCommand(repo, 'cursor', 'afterAgentResponse'),
    fixture('cursor', 'afterAgentResponse.json', { repo, transcript }),
    {
      cwd: repo,
      home,
    },
  );
  await runHookCommand(installedCommand(repo, 'cursor', 'stop'), fixture('cursor', 'stop.json', { repo, transcript }), { cwd: repo, home });
  const dir = projectDir(home);
  const text = JSON.parse(fixture('cursor', 'afterAgentResponse.json', { repo })).text;
  assert.equal(
    readJsonl(join(dir, 'session-summaries.jsonl')).map((row) => [row.conversation_url, row.summary]),
    [['cursor://conversation/2dd698cf-0000-4000-8000-000000000001', text]],
  );
  assert.is(countSnapshots(dir), 1);
});

test('Codex: apply_patch through the shell tool is captured, a plain shell command records nothing, the ledger names openai/gpt-5.5', async () => {
  const { repo, home } = await initialized();
  const codex = JSON.parse(readFileSync(join(repo, '.codex/hooks.json'), 'utf8'));
  assert.is(codex.hooks.PostToolUse[0].matcher, 'apply_patch|Bash');
  writeFileSync(join(repo, 'VERSION'), '1.0.0\n');
  commit(repo, home, 'version');
  const command = installedCommand(repo, 'codex', 'PostToolUse');
  await runHookCommand(command, fixture('codex', 'PostToolUse.Bash.json', { repo }), { cwd: repo, home });
  assert.not.ok(existsSync(join(home, 'projects')) && readJsonl(join(projectDir(home), 'traces.jsonl')).length > 0, 'nothing recorded');

  writeFileSync(join(repo, 'VERSION'), '1.1.0\n');
  writeFileSync(join(repo, 'NOTES.md'), '# Migration notes\n\n- Move the reverse proxy first.\n');
  await runHookCommand(command, fixture('codex', 'PostToolUse.BashPatch.json', { repo }), { cwd: repo, home });
  const [trace] = readJsonl(join(projectDir(home), 'traces.jsonl'));
  assert.equal([trace!.tool, trace!.model], ['Bash', 'gpt-5.5']);
  assert.equal(
    trace!.files.map((file: any) => file.path),
    ['NOTES.md', 'VERSION'],
  );
  const transcript = transcriptCopy('codex');
  await runHookCommand(installedCommand(repo, 'codex', 'Stop'), fixture('codex', 'Stop.json', { repo, transcript }), { cwd: repo, home });
  await runHookCommand(installedCommand(repo, 'codex', 'SessionEnd'), fixture('codex', 'SessionEnd.json', { repo, transcript }), {
    cwd: repo,
    home,
  });
  assert.equal(
    readJsonl(join(projectDir(home), 'session-summaries.jsonl')).map((row) => row.summary),
    ['OK'],
  );

  const ledger = ledgerOf(home, commit(repo, home, 'release notes'));
  for (const file of ledger.record.files) {
    assert.equal(file.conversations[0].contributor, { type: 'ai', model_id: 'openai/gpt-5.5' }, file.path);
  }
  assert.equal(ledgerRecordOf(ledger), ledger.record);
  assert.is(hookErrors(home), '');
});

function countSnapshots(dir: string): number {
  const path = join(dir, 'conversations.jsonl');
  return existsSync(path) ? readJsonl(path).length : 0;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

test.run();
