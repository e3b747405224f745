// Codex CLI hooks follow Claude Code's shape (`session_id`, `transcript_path`,
// `cwd`, `hook_event_name`) plus `turn_id` and `model`; Stop carries
// `last_assistant_message`. Its file edits arrive as `apply_patch`, or, in
// several releases, as a shell command running apply_patch (`tool_name` `Bash`,
// the patch in `tool_input.command`, a string or an argv), or as Claude-style
// Write/Edit tools in forks that expose those. A shell command that is not a
// patch is none of tracer's business: nothing is recorded for it.
import { isAbsolute, join, resolve } from 'node:path';
import {
  agentPlugin,
  claudeFileWrites,
  configDir,
  isApplyPatch,
  parseApplyPatch,
  FILE_TOOLS,
  eventKey,
  isObject,
  optionalString,
  promptLength,
  requiredString,
  type AgentAdapter,
  type FileWrite,
  type HookEvent,
  type Payload,
} from '../../plugin/agent.js';

const TURN_ENDS = new Set(['stop', 'sessionend']);
const SHELL_TOOLS = new Set(['bash', 'shell', 'local_shell', 'exec_command', 'container.exec']);

export function normalizeCodex(event: string, payload: Payload): HookEvent {
  const key = eventKey(event);
  const tool = optionalString(payload.tool_name);
  const endsTurn = TURN_ENDS.has(key);
  const writes = key === 'posttooluse' && tool !== undefined ? codexWrites(tool, payload.tool_input) : [];
  const shellWithoutPatch = key === 'posttooluse' && tool !== undefined && SHELL_TOOLS.has(tool.toLowerCase()) && writes.length === 0;
  return {
    agent: 'codex',
    event,
    conversationId: requiredString(payload, 'session_id', 'codex'),
    turnId: optionalString(payload.turn_id),
    model: optionalString(payload.model),
    tool,
    cwd: optionalString(payload.cwd),
    writes,
    promptChars: key === 'userpromptsubmit' ? promptLength(payload.prompt) : undefined,
    transcriptPath: endsTurn ? optionalString(payload.transcript_path) : undefined,
    endsTurn,
    reportedSummary: endsTurn ? optionalString(payload.last_assistant_message) : undefined,
    ...(shellWithoutPatch ? { nothingToRecord: true as const } : {}),
  };
}

function codexWrites(tool: string, input: unknown): FileWrite[] {
  if (FILE_TOOLS.has(tool)) return claudeFileWrites(tool, input);
  const patch = patchText(input);
  if (patch === undefined) return [];
  // A shell command may run in another folder than the session's (`workdir`): the patch's paths start there.
  const workdir = isObject(input) && typeof input.workdir === 'string' && isAbsolute(input.workdir) ? input.workdir : undefined;
  const writes = parseApplyPatch(patch);
  return workdir === undefined ? writes : writes.map((write) => ({ ...write, filePath: resolve(workdir, write.filePath) }));
}

/** The patch may be the input itself, or sit in `input`, `patch` or `command` (a string or an argv). */
function patchText(input: unknown): string | undefined {
  const candidates = isObject(input) ? [input.input, input.patch, input.command] : [input];
  for (const candidate of candidates) {
    const text = Array.isArray(candidate) ? candidate.filter((part) => typeof part === 'string').join('\n') : candidate;
    if (typeof text === 'string' && isApplyPatch(text)) return text;
  }
  return undefined;
}

export const codex: AgentAdapter = {
  id: 'codex',
  title: 'Codex CLI',
  install: {
    kind: 'settings',
    layout: 'grouped',
    projectFile: '.codex/hooks.json',
    // Codex CLI keeps its user configuration in CODEX_HOME (default ~/.codex).
    globalFile: (env) => join(configDir(env, 'CODEX_HOME', '.codex'), 'hooks.json'),
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
  },
  rules: { dir: '.codex/rules', extension: '.md' },
  normalize: normalizeCodex,
  // The reader is imported on first use: the hook, which loads this module on every tool use, never loads it.
  transcript: () => import('./transcripts/codex.js').then((module) => module.codexTranscript),
};

export default agentPlugin(codex);
