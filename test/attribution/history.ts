import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { hook } from '../capture/hook-fixtures.js';
import { commitAll, gitIn, machine, type Machine } from '../capture/ledger-helpers.js';
import { runMain } from '../helpers/cli.js';

/**
 * A history built through the real hooks, whose attribution is known by
 * construction: a commit from before tracer was installed, Claude Code and
 * Cursor and Codex writing through their hook payloads, a person's lines above
 * the agent's (so blame's line numbers differ from the commit's), a
 * pure rename, and an amend by the person on top of Codex's commit.
 */
export const CLAUDE_SESSION = '0d8f6c1e-5a2b-4c47-9d7e-3f1b2a6c9e10';
export const CURSOR_CONVERSATION = 'c7a1e9b2-44f0-4e0c-8a51-2b9d6f3e7a01';
export const CODEX_SESSION = '019a2f4e-7c1d-7b90-a3e5-6f2d8c0b1a44';
export const CLAUDE_MODEL = 'claude-sonnet-4-5';
export const CURSOR_MODEL = 'claude-4.5-sonnet';
export const CODEX_MODEL = 'gpt-5-codex';
/** The same models as the ledgers name them: the models.dev `provider/model` form where the provider is known. */
export const CLAUDE_MODEL_ID = 'anthropic/claude-sonnet-4-5';
export const CURSOR_MODEL_ID = 'anthropic/claude-4.5-sonnet';
export const CODEX_MODEL_ID = 'openai/gpt-5-codex';

export const GREET = ['export function greet(name: string): string {', '  return `Hello, ${name}!`;', '}'];
/** Put above Claude's lines, so that those stand lower in the file than in the commit that added them. */
export const BY_HAND = ['// written by hand', 'export const version = 1;', ''];
export const SHOUT = ['export function shout(name: string): string {', '  return greet(name).toUpperCase();', '}'];
export const REVIEWED = '// reviewed by a person';
export const UTIL = ['def double(x):', '    return 2 * x'];
export const PRE_TRACER = ['const app = 1;', 'export default app;'];

export interface History extends Machine {
  pre: string;
  claude: string;
  person: string;
  cursor: string;
  rename: string;
  codexBeforeAmend: string;
  amended: string;
}

export async function buildHistory(): Promise<History> {
  const m = machine();
  write(m.repo, 'app.ts', PRE_TRACER);
  const pre = commitAll(m.repo, 'before tracer', { home: m.home });
  const init = await runMain(['init', '--agents', 'none'], { cwd: m.repo, home: m.home });
  if (init.code !== 0) throw new Error(`tracer init failed: ${init.stderr}`);

  write(m.repo, 'src/greet.ts', GREET);
  await send(m, 'claude-code', 'PostToolUse', {
    session_id: CLAUDE_SESSION,
    transcript_path: join(m.repo, 'no-transcript.jsonl'),
    cwd: m.repo,
    hook_event_name: 'PostToolUse',
    model: CLAUDE_MODEL,
    tool_name: 'Write',
    tool_input: { file_path: join(m.repo, 'src/greet.ts'), content: text(GREET) },
    tool_response: { type: 'create', filePath: join(m.repo, 'src/greet.ts'), content: text(GREET), structuredPatch: [] },
  });
  const claude = commitAll(m.repo, 'greet, by Claude Code', { home: m.home });

  write(m.repo, 'src/greet.ts', [...BY_HAND, ...GREET]);
  const person = commitAll(m.repo, 'version, by hand', { home: m.home });

  write(m.repo, 'lib/util.py', UTIL);
  await send(m, 'cursor', 'afterFileEdit', {
    conversation_id: CURSOR_CONVERSATION,
    generation_id: 'a3f0c2d9-1b7e-4c65-9e2a-5d8b0f4c6e11',
    model: CURSOR_MODEL,
    hook_event_name: 'afterFileEdit',
    workspace_roots: [m.repo],
    file_path: join(m.repo, 'lib/util.py'),
    edits: [{ old_string: '', new_string: text(UTIL) }],
  });
  const cursor = commitAll(m.repo, 'util, by Cursor', { home: m.home });

  gitIn(m.repo, ['mv', 'src/greet.ts', 'src/hello.ts'], { home: m.home });
  const rename = commitAll(m.repo, 'rename greet.ts to hello.ts', { home: m.home });

  write(m.repo, 'src/hello.ts', [...BY_HAND, ...GREET, ...SHOUT]);
  await send(m, 'codex', 'PostToolUse', {
    session_id: CODEX_SESSION,
    turn_id: '1',
    transcript_path: join(m.repo, 'no-transcript.jsonl'),
    cwd: m.repo,
    hook_event_name: 'PostToolUse',
    model: CODEX_MODEL,
    tool_name: 'apply_patch',
    tool_input: {
      command: `*** Begin Patch\n*** Update File: src/hello.ts\n@@\n ${GREET.at(-1)}\n${SHOUT.map((line) => `+${line}`).join('\n')}\n*** End Patch\n`,
    },
    tool_response: { output: 'Success. Updated the following files:\nM src/hello.ts\n', exit_code: 0 },
  });
  const codexBeforeAmend = commitAll(m.repo, 'shout, by Codex', { home: m.home });

  write(m.repo, 'src/hello.ts', [...BY_HAND, ...GREET, ...SHOUT, REVIEWED]);
  gitIn(m.repo, ['add', '-A'], { home: m.home });
  gitIn(m.repo, ['commit', '-q', '--amend', '--no-edit'], { home: m.home });
  const amended = gitIn(m.repo, ['rev-parse', 'HEAD']);
  return { ...m, pre, claude, person, cursor, rename, codexBeforeAmend, amended };
}

async function send(m: Machine, agent: string, event: string, body: Record<string, unknown>): Promise<void> {
  await hook(agent, event, JSON.stringify(body), { cwd: m.repo, home: m.home });
}

export function write(repo: string, path: string, lines: readonly string[]): void {
  const full = join(repo, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, text(lines));
}

function text(lines: readonly string[]): string {
  return lines.map((line) => `${line}\n`).join('');
}

export function tracer(m: Machine, args: readonly string[], cwd = m.repo) {
  return runMain(args, { cwd, home: m.home });
}
