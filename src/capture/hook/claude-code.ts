import {
  editFragments,
  eventKey,
  isObject,
  optionalString,
  PayloadError,
  promptLength,
  requiredString,
  type FileWrite,
  type HookEvent,
  type Payload,
} from './hook-event.js';

/**
 * Claude Code hooks: every payload has `session_id`, `transcript_path`, `cwd` and
 * `hook_event_name`. PostToolUse runs after the tool, so the file on disk already
 * holds what Write, Edit or MultiEdit wrote; PreToolUse runs before it and records
 * no files.
 */
export const FILE_TOOLS = new Set(['Write', 'Edit', 'MultiEdit']);
const TURN_ENDS = new Set(['stop', 'sessionend']);

export function normalizeClaudeCode(event: string, payload: Payload): HookEvent {
  const key = eventKey(event);
  const tool = optionalString(payload.tool_name);
  const endsTurn = TURN_ENDS.has(key);
  return {
    agent: 'claude-code',
    event,
    conversationId: requiredString(payload, 'session_id', 'claude-code'),
    model: optionalString(payload.model),
    tool,
    cwd: optionalString(payload.cwd),
    writes: key === 'posttooluse' && tool !== undefined && FILE_TOOLS.has(tool) ? [claudeFileWrite(tool, payload.tool_input)] : [],
    promptChars: key === 'userpromptsubmit' ? promptLength(payload.prompt) : undefined,
    transcriptPath: endsTurn ? optionalString(payload.transcript_path) : undefined,
    endsTurn,
  };
}

export function claudeFileWrite(tool: string, input: unknown): FileWrite {
  if (!isObject(input) || typeof input.file_path !== 'string' || input.file_path === '') {
    throw new PayloadError('missing_field', `The claude-code ${tool} payload has no "tool_input.file_path"; the event was skipped.`);
  }
  const filePath = input.file_path;
  switch (tool) {
    case 'Write':
      if (typeof input.content !== 'string')
        throw new PayloadError('missing_field', 'The claude-code Write payload has no "tool_input.content"; the event was skipped.');
      return { filePath, fragments: [{ text: input.content }] };
    case 'Edit':
      if (typeof input.new_string !== 'string')
        throw new PayloadError('missing_field', 'The claude-code Edit payload has no "tool_input.new_string"; the event was skipped.');
      return { filePath, fragments: [{ text: input.new_string, everyOccurrence: input.replace_all === true }] };
    default:
      return { filePath, fragments: editFragments(input.edits, 'claude-code MultiEdit') };
  }
}
