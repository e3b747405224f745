import {
  claudeFileWrites,
  eventKey,
  FILE_TOOLS,
  optionalString,
  promptLength,
  requiredString,
  type HookEvent,
  type Payload,
} from './hook-event.js';
/**
 * Claude Code hooks: every payload has `session_id`, `transcript_path`, `cwd` and
 * `hook_event_name`. PostToolUse runs after the tool, so the file on disk already
 * holds what Write, Edit, MultiEdit or NotebookEdit wrote; PreToolUse runs before
 * it and records no files. No payload names the model: a trace that wrote files
 * takes it from the end of the transcript. Stop may carry `last_assistant_message`.
 */
const TURN_ENDS = new Set(['stop', 'sessionend']);

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
    model,
    tool,
    cwd: optionalString(payload.cwd),
    writes,
    promptChars: key === 'userpromptsubmit' ? promptLength(payload.prompt) : undefined,
    transcriptPath: endsTurn ? transcript : undefined,
    endsTurn,
    reportedSummary: endsTurn ? optionalString(payload.last_assistant_message) : undefined,
    // Only a trace that wrote lines needs the model (its ledger ranges name it); the others skip the read.
    modelTranscriptPath: model === undefined && writes.length > 0 ? transcript : undefined,
  };
}
