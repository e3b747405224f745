import { editFragments, eventKey, optionalString, promptLength, requiredString, type HookEvent, type Payload } from './hook-event.js';

/**
 * Cursor hooks: `conversation_id`, `generation_id`, `model`, `hook_event_name`,
 * `workspace_roots`. afterFileEdit (and afterTabFileEdit, for Tab completions)
 * run after the edit with `file_path` and `edits[{old_string, new_string}]`.
 */
const FILE_EVENTS = new Set(['afterfileedit', 'aftertabfileedit']);
const TURN_ENDS = new Set(['stop', 'sessionend']);

export function normalizeCursor(event: string, payload: Payload): HookEvent {
  const key = eventKey(event);
  const roots = Array.isArray(payload.workspace_roots) ? payload.workspace_roots : [];
  const endsTurn = TURN_ENDS.has(key);
  const writes = FILE_EVENTS.has(key)
    ? [{ filePath: requiredString(payload, 'file_path', 'cursor'), fragments: editFragments(payload.edits, 'cursor') }]
    : [];
  return {
    agent: 'cursor',
    event,
    conversationId: requiredString(payload, 'conversation_id', 'cursor'),
    turnId: optionalString(payload.generation_id),
    model: optionalString(payload.model),
    tool: FILE_EVENTS.has(key) ? 'edit' : undefined,
    cwd: optionalString(roots[0]),
    writes,
    promptChars: key === 'beforesubmitprompt' ? promptLength(payload.prompt) : undefined,
    transcriptPath: endsTurn ? optionalString(payload.transcript_path) : undefined,
    endsTurn,
  };
}
