// The coding agents tracer hooks into, as data: where each keeps its hook settings
// and which of its events we listen to. `grouped` is the Claude Code layout that
// Codex CLI adopted ({hooks: {Event: [{matcher, hooks: [{type, command}]}]}});
// `flat` is Cursor's ({version: 1, hooks: {event: [{command}]}}).
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { ExitCode, TracerError } from '../../core/errors.js';

export type AgentName = 'claude-code' | 'cursor' | 'codex';
export const AGENT_NAMES: readonly AgentName[] = ['claude-code', 'cursor', 'codex'];

export interface HookedEvent {
  event: string;
  /** Tool-name filter for tool events: no trace is wanted for reads or shell commands. */
  matcher?: string;
}

export interface AgentSpec {
  name: AgentName;
  shape: 'grouped' | 'flat';
  /** Relative to the top of the working tree. */
  projectFile: string;
  globalFile(env: NodeJS.ProcessEnv): string;
  /** Members a file we create starts with, before `hooks`. */
  skeleton: Record<string, unknown>;
  events: readonly HookedEvent[];
  /** Where `tracer rule add` writes, relative to the working tree, and the file extension. */
  rulesDir: string;
  ruleExtension: '.md' | '.mdc';
}

export function userHome(env: NodeJS.ProcessEnv): string {
  return env.HOME?.trim() ? resolve(env.HOME) : homedir();
}

export const AGENTS: Record<AgentName, AgentSpec> = {
  'claude-code': {
    name: 'claude-code',
    shape: 'grouped',
    projectFile: '.claude/settings.json',
    // Claude Code reads CLAUDE_CONFIG_DIR instead of ~/.claude when it is set.
    globalFile: (env) =>
      join(env.CLAUDE_CONFIG_DIR?.trim() ? resolve(env.CLAUDE_CONFIG_DIR) : join(userHome(env), '.claude'), 'settings.json'),
    skeleton: {},
    events: [
      { event: 'SessionStart' },
      { event: 'UserPromptSubmit' },
      { event: 'PostToolUse', matcher: 'Write|Edit|MultiEdit|NotebookEdit' },
      { event: 'Stop' },
      { event: 'SessionEnd' },
    ],
    rulesDir: '.claude/rules',
    ruleExtension: '.md',
  },
  cursor: {
    name: 'cursor',
    shape: 'flat',
    projectFile: '.cursor/hooks.json',
    globalFile: (env) => join(userHome(env), '.cursor', 'hooks.json'),
    skeleton: { version: 1 },
    events: [
      { event: 'sessionStart' },
      { event: 'beforeSubmitPrompt' },
      { event: 'afterFileEdit' },
      { event: 'afterAgentResponse' },
      { event: 'stop' },
      { event: 'sessionEnd' },
    ],
    rulesDir: '.cursor/rules',
    ruleExtension: '.mdc',
  },
  codex: {
    name: 'codex',
    shape: 'grouped',
    projectFile: '.codex/hooks.json',
    // Codex CLI keeps its user configuration in CODEX_HOME (default ~/.codex).
    globalFile: (env) => join(env.CODEX_HOME?.trim() ? resolve(env.CODEX_HOME) : join(userHome(env), '.codex'), 'hooks.json'),
    skeleton: {},
    // Codex edits files through apply_patch, which several releases run through
    // the shell tool (Bash): both reach the hook, and a shell command that is no
    // patch records nothing. The turn-level events carry the session, the
    // transcript and the final message.
    events: [
      { event: 'SessionStart' },
      { event: 'UserPromptSubmit' },
      { event: 'PostToolUse', matcher: 'apply_patch|Bash' },
      { event: 'Stop' },
      { event: 'SessionEnd' },
    ],
    rulesDir: '.codex/rules',
    ruleExtension: '.md',
  },
};

/** `--agents claude-code,cursor` (or `all`, or `none`), in the order of AGENT_NAMES. */
export function parseAgentList(text: string | undefined): AgentSpec[] {
  const words = (text ?? 'all')
    .split(',')
    .map((word) => word.trim())
    .filter((word) => word !== '');
  if (words.length === 1 && words[0] === 'all') return AGENT_NAMES.map((name) => AGENTS[name]);
  if (words.length === 1 && words[0] === 'none') return [];
  for (const word of words) {
    if (!(AGENT_NAMES as readonly string[]).includes(word)) {
      throw new TracerError(
        'unknown_agent',
        `Unknown agent "${word}" in --agents; use a comma-separated list of ${AGENT_NAMES.join(', ')} (or all, or none).`,
        {
          exitCode: ExitCode.usage,
        },
      );
    }
  }
  if (words.length === 0)
    throw new TracerError(
      'unknown_agent',
      `--agents is empty; use a comma-separated list of ${AGENT_NAMES.join(', ')} (or all, or none).`,
      { exitCode: ExitCode.usage },
    );
  return AGENT_NAMES.filter((name) => words.includes(name)).map((name) => AGENTS[name]);
}
