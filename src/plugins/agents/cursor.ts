// Cursor hooks: `conversation_id`, `generation_id`, `model`, `hook_event_name`,
// `workspace_roots`. afterFileEdit (and afterTabFileEdit, for Tab completions)
// run after the edit with `file_path` and `edits[{old_string, new_string}]`;
// afterAgentResponse carries the reply's `text`; stop and sessionEnd may name the
// `transcript_path`.
//
// Cursor also runs Claude Code's hooks from .claude/settings.json (third-party
// hooks, on by default). Those calls reach `tracer hook claude-code` with a
// Cursor payload under Claude Code's event names (PostToolUse with `tool_input`);
// they are read here, as Cursor's. Its JSONL transcripts hold
// `{role, message: {content: [{type: "text", text}]}}`.
import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve, sep } from 'node:path';
import {
  agentPlugin,
  claudeFileWrites,
  FILE_TOOLS,
  editFragments,
  eventKey,
  isObject,
  lastTextInJsonl,
  optionalString,
  promptLength,
  reportedTokens,
  requiredString,
  textBlocks,
  userHome,
  type AgentAdapter,
  type FileWrite,
  type HookEvent,
  type Payload,
} from '../../plugin/agent.js';

const FILE_EVENTS = new Set(['afterfileedit', 'aftertabfileedit']);
const TURN_ENDS = new Set(['stop', 'sessionend']);
const PROMPT_EVENTS = new Set(['beforesubmitprompt', 'userpromptsubmit']);
const USAGE_EVENTS = new Set(['stop', 'afteragentresponse']);
/** Matches tracer's own cursor entry in a hooks.json, whatever path it was installed with. */
const TRACER_CURSOR_ENTRY = /\bhook\s+cursor\s+afterFileEdit\b/;

export function normalizeCursor(event: string, payload: Payload): HookEvent {
  // Through Claude Code's hooks the command names Claude's event; the payload still names Cursor's own.
  const key = eventKey(optionalString(payload.hook_event_name) ?? event);
  const roots = (Array.isArray(payload.workspace_roots) ? payload.workspace_roots : []).filter(
    (root): root is string => typeof root === 'string' && root !== '',
  );
  const endsTurn = TURN_ENDS.has(key);
  const writes = cursorWrites(key, payload);
  return {
    agent: 'cursor',
    event,
    conversationId: requiredString(payload, 'conversation_id', 'cursor'),
    turnId: optionalString(payload.generation_id),
    model: optionalString(payload.model),
    tool: FILE_EVENTS.has(key) ? 'edit' : optionalString(payload.tool_name),
    cwd: rootHolding(roots, writes) ?? optionalString(payload.cwd),
    writes,
    promptChars: PROMPT_EVENTS.has(key) ? promptLength(payload.prompt) : undefined,
    transcriptPath: endsTurn ? optionalString(payload.transcript_path) : undefined,
    endsTurn,
    reportedSummary: key === 'afteragentresponse' ? optionalString(payload.text) : undefined,
    // Cursor 3 reports the generation's tokens on its stop and afterAgentResponse (the same counts on both), and no cache split.
    usage: USAGE_EVENTS.has(key) ? reportedTokens(payload, { input: 'input_tokens', output: 'output_tokens' }) : undefined,
  };
}

function cursorWrites(key: string, payload: Payload): FileWrite[] {
  if (FILE_EVENTS.has(key))
    return [{ filePath: requiredString(payload, 'file_path', 'cursor'), fragments: editFragments(payload.edits, 'cursor') }];
  const tool = optionalString(payload.tool_name);
  if (key !== 'posttooluse' || tool === undefined) return [];
  if (FILE_TOOLS.has(tool)) return claudeFileWrites(tool, payload.tool_input);
  // Cursor's own edit tool under Claude Code's event: `{file_path, edits}` as afterFileEdit gives them.
  const input = isObject(payload.tool_input) ? payload.tool_input : undefined;
  if (input && typeof input.file_path === 'string' && Array.isArray(input.edits))
    return [{ filePath: input.file_path, fragments: editFragments(input.edits, 'cursor') }];
  return [];
}

/**
 * The workspace root that holds the edited file (the deepest, when roots nest);
 * the first root for anything else. A multi-root workspace's files belong to
 * their own repositories.
 */
function rootHolding(roots: readonly string[], writes: readonly FileWrite[]): string | undefined {
  const file = writes[0]?.filePath;
  if (file !== undefined && isAbsolute(file)) {
    const holding = roots.filter((root) => resolve(file).startsWith(resolve(root).replace(/[\\/]$/, '') + sep));
    if (holding.length > 0) return holding.reduce((a, b) => (b.length > a.length ? b : a));
  }
  return roots[0];
}

/**
 * Whether tracer's Cursor hooks are installed where Cursor reads them (a
 * workspace's .cursor/hooks.json, or ~/.cursor/hooks.json): then Cursor's own
 * afterFileEdit records the edit, and the call through Claude Code's hooks
 * would only record it a second time.
 */
function cursorRecordsItself(payload: Payload, env: NodeJS.ProcessEnv): boolean {
  const roots = Array.isArray(payload.workspace_roots) ? payload.workspace_roots.filter((root) => typeof root === 'string') : [];
  const files = roots.map((root) => join(root, '.cursor', 'hooks.json'));
  if (env.HOME) files.push(join(env.HOME, '.cursor', 'hooks.json'));
  return files.some((file) => {
    try {
      return TRACER_CURSOR_ENTRY.test(readFileSync(file, 'utf8'));
    } catch {
      return false;
    }
  });
}

/** The text of the last assistant entry of a Cursor JSONL transcript. */
export function lastCursorAssistantText(transcriptPath: string): Promise<string | undefined> {
  return lastTextInJsonl(transcriptPath, (entry) => {
    if ((entry.role ?? entry.type) !== 'assistant') return undefined;
    const message = entry.message;
    const texts = textBlocks(isObject(message) ? message.content : entry.text);
    return texts.length > 0 ? texts.join('\n\n') : undefined;
  });
}

export const cursor: AgentAdapter = {
  id: 'cursor',
  title: 'Cursor',
  install: {
    kind: 'settings',
    layout: 'flat',
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
  },
  rules: { dir: '.cursor/rules', extension: '.mdc' },
  normalize: normalizeCursor,
  acceptsHandOff: (payload, context) => !cursorRecordsItself(payload, context.env),
  async closingMessage(transcriptPath, reported) {
    if (reported !== undefined) return { text: reported, final: true };
    return { text: await lastCursorAssistantText(transcriptPath), final: true };
  },
  // The reader is imported on first use: the hook, which loads this module on every tool use, never loads it.
  transcript: () => import('./transcripts/cursor.js').then((module) => module.cursorTranscript),
};

export default agentPlugin(cursor);
