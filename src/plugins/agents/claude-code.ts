// Claude Code hooks: every payload has `session_id`, `transcript_path`, `cwd` and
// `hook_event_name`. PostToolUse runs after the tool, so the file on disk already
// holds what Write, Edit, MultiEdit or NotebookEdit wrote. No payload names the
// model: a trace that wrote files takes it from the end of the transcript. Stop
// may carry `last_assistant_message`.
//
// Claude Code writes JSONL entries `{type, isSidechain, message: {id, model,
// content}}`; one message may span several lines (one per content block, sharing
// `message.id`). Subagent turns (`isSidechain`), messages Claude Code made up
// itself (model `<synthetic>`) and API errors (`isApiErrorMessage`) are not the
// assistant's words.
import { join } from 'node:path';
import {
  agentPlugin,
  configDir,
  claudeFileWrites,
  eventKey,
  FILE_TOOLS,
  findFromEnd,
  isObject,
  linesFromEnd,
  optionalString,
  parseJsonLine,
  promptLength,
  requiredString,
  textBlocks,
  type AgentAdapter,
  type ClosingMessage,
  type HookEvent,
  type Payload,
} from '../../plugin/agent.js';

const TURN_ENDS = new Set(['stop', 'sessionend']);
const SYNTHETIC_MODEL = '<synthetic>';
const MODEL = /"model":"([^"\\]{1,250})"/;
/** Far enough back for the longest turn. */
const SUMMARY_CAP_BYTES = 8 * 1024 * 1024;

export function normalizeClaudeCode(event: string, payload: Payload): HookEvent {
  const key = eventKey(event);
  const tool = optionalString(payload.tool_name);
  const endsTurn = TURN_ENDS.has(key);
  const writes = key === 'posttooluse' && tool !== undefined && FILE_TOOLS.has(tool) ? claudeFileWrites(tool, payload.tool_input) : [];
  const model = optionalString(payload.model);
  const transcript = optionalString(payload.transcript_path);
  return {
    agent: 'claude-code',
    event,
    conversationId: requiredString(payload, 'session_id', 'claude-code'),
    // Only a trace that wrote lines needs the model (its ledger ranges name it); the others skip the read.
    model: model ?? (writes.length > 0 && transcript !== undefined ? modelFromTranscript(transcript) : undefined),
    tool,
    cwd: optionalString(payload.cwd),
    writes,
    promptChars: key === 'userpromptsubmit' ? promptLength(payload.prompt) : undefined,
    transcriptPath: endsTurn ? transcript : undefined,
    endsTurn,
    reportedSummary: endsTurn ? optionalString(payload.last_assistant_message) : undefined,
  };
}

/**
 * The model of the latest assistant message of the main conversation: every
 * assistant line names its model (`message.model`, before the content), so it is
 * found within the last few lines; subagent lines and made-up messages are passed over.
 */
export function modelFromTranscript(path: string): string | undefined {
  return findFromEnd(path, (line) => {
    if (!line.includes('"type":"assistant"') || line.includes('"isSidechain":true')) return undefined;
    const model = MODEL.exec(line)?.[1];
    return model === undefined || model === SYNTHETIC_MODEL ? undefined : model;
  });
}

export interface LastAssistant {
  text?: string;
  /** Whether the transcript's latest conversational entry is that message: false when the final reply is not written yet. */
  isLatest: boolean;
}

/** The text of the last real assistant message in a Claude Code transcript. */
export async function lastClaudeAssistant(transcriptPath: string): Promise<LastAssistant> {
  let messageId: string | undefined;
  let texts: string[] = [];
  let isLatest = true;
  for await (const line of linesFromEnd(transcriptPath, SUMMARY_CAP_BYTES)) {
    const entry = parseJsonLine(line);
    if (!entry || entry.isSidechain === true || entry.isMeta === true) continue;
    if (!isAssistant(entry) || isMadeUp(entry)) {
      if (entry.type === 'user') {
        if (texts.length > 0) break;
        isLatest = false;
      }
      continue;
    }
    const message = entry.message as { id?: unknown; content?: unknown };
    const id = typeof message.id === 'string' ? message.id : undefined;
    if (texts.length > 0 && id !== messageId) break;
    const blockTexts = textBlocks(message.content);
    if (texts.length === 0 && blockTexts.length === 0) continue;
    messageId = id;
    texts = [...blockTexts, ...texts];
  }
  return texts.length > 0 ? { text: texts.join('\n\n'), isLatest } : { isLatest: false };
}

function isAssistant(entry: Payload): boolean {
  return entry.type === 'assistant' && isObject(entry.message);
}

function isMadeUp(entry: Payload): boolean {
  return entry.isApiErrorMessage === true || (entry.message as { model?: unknown }).model === SYNTHETIC_MODEL;
}

/** Cursor's payloads carry its version and workspace roots, also when Cursor runs Claude Code's hooks. */
function isCursorPayload(payload: Payload): boolean {
  return (
    typeof payload.cursor_version === 'string' || (Array.isArray(payload.workspace_roots) && typeof payload.conversation_id === 'string')
  );
}

export const claudeCode: AgentAdapter = {
  id: 'claude-code',
  title: 'Claude Code',
  install: {
    kind: 'settings',
    layout: 'grouped',
    projectFile: '.claude/settings.json',
    // Claude Code reads CLAUDE_CONFIG_DIR instead of ~/.claude when it is set.
    globalFile: (env) => join(configDir(env, 'CLAUDE_CONFIG_DIR', '.claude'), 'settings.json'),
    events: [
      { event: 'SessionStart' },
      { event: 'UserPromptSubmit' },
      { event: 'PostToolUse', matcher: 'Write|Edit|MultiEdit|NotebookEdit' },
      { event: 'Stop' },
      { event: 'SessionEnd' },
    ],
  },
  rules: { dir: '.claude/rules', extension: '.md' },
  normalize: normalizeClaudeCode,
  // Cursor also runs Claude Code's hooks (third-party hooks): the edit is Cursor's, and is recorded once.
  handOff: (payload) => (isCursorPayload(payload) ? 'cursor' : undefined),
  async closingMessage(transcriptPath: string, reported: string | undefined): Promise<ClosingMessage | undefined> {
    const last = await lastClaudeAssistant(transcriptPath).catch(() => undefined);
    if (!last) return undefined;
    // Claude Code may fire Stop before the turn's final message reaches the transcript.
    const final = last.isLatest && (reported === undefined || last.text?.trim() === reported.trim());
    return { text: last.text, final };
  },
  // The reader is imported on first use: the hook, which loads this module on every tool use, never loads it.
  transcript: () => import('./transcripts/claude-code.js').then((module) => module.claudeCodeTranscript),
};

export default agentPlugin(claudeCode);
