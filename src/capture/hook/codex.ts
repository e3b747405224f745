import { isApplyPatch, parseApplyPatch } from './apply-patch.js';
import { claudeFileWrite, FILE_TOOLS } from './claude-code.js';
import {
  eventKey,
  isObject,
  optionalString,
  promptLength,
  requiredString,
  type FileWrite,
  type HookEvent,
  type Payload,
} from './hook-event.js';

/**
 * Codex CLI hooks follow Claude Code's shape (`session_id`, `transcript_path`,
 * `cwd`, `hook_event_name`) plus `turn_id` and `model`; Stop carries
 * `last_assistant_message`. Its file edits arrive as `apply_patch` (or as
 * Claude-style Write/Edit tools in forks that expose those).
 */
const TURN_ENDS = new Set(['stop', 'sessionend']);

export function normalizeCodex(event: string, payload: Payload): HookEvent {
  const key = eventKey(event);
  const tool = optionalString(payload.tool_name);
  const endsTurn = TURN_ENDS.has(key);
  return {
    agent: 'codex',
    event,
    conversationId: requiredString(payload, 'session_id', 'codex'),
    turnId: optionalString(payload.turn_id),
    model: optionalString(payload.model),
    tool,
    cwd: optionalString(payload.cwd),
    writes: key === 'posttooluse' && tool !== undefined ? codexWrites(tool, payload.tool_input) : [],
    promptChars: key === 'userpromptsubmit' ? promptLength(payload.prompt) : undefined,
    transcriptPath: endsTurn ? optionalString(payload.transcript_path) : undefined,
    endsTurn,
    reportedSummary: endsTurn ? optionalString(payload.last_assistant_message) : undefined,
  };
}

function codexWrites(tool: string, input: unknown): FileWrite[] {
  if (FILE_TOOLS.has(tool)) return [claudeFileWrite(tool, input)];
  const patch = patchText(input);
  return patch === undefined ? [] : parseApplyPatch(patch);
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
