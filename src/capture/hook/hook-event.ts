/**
 * What a hook call means once the agent's own payload shape is set aside. Each
 * agent module (claude-code.ts, cursor.ts, codex.ts) turns its payload into this.
 */
export const AGENTS = ['claude-code', 'cursor', 'codex'] as const;
export type AgentName = (typeof AGENTS)[number];

export interface HookEvent {
  agent: AgentName;
  /** The agent's own event name, as given on the command line. */
  event: string;
  conversationId: string;
  turnId?: string;
  model?: string;
  tool?: string;
  /** Folder the agent works in: where the project is looked up and relative paths start. */
  cwd?: string;
  /** Files the agent has just written (only on events that run after the write). */
  writes: FileWrite[];
  /** Length of the user's prompt; the text itself is never kept. */
  promptChars?: number;
  /** Set on stop and session-end events: the transcript is snapshotted then. */
  transcriptPath?: string;
  endsTurn: boolean;
  /** The agent's own closing message, when its payload carries one (Codex). */
  reportedSummary?: string;
}

export interface FileWrite {
  /** As given by the agent: absolute, or relative to `cwd`. */
  filePath: string;
  fragments: WrittenFragment[];
}

export interface WrittenFragment {
  /** Text the agent put into the file. */
  text: string;
  /** Every occurrence is the agent's (Edit with replace_all); else the first one found. */
  everyOccurrence?: boolean;
  /** The text is whole lines (a patch's added lines): match only at line boundaries. */
  wholeLines?: boolean;
}

/** A payload that cannot be recorded; logged, never thrown at the agent. */
export class PayloadError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export type Payload = Record<string, unknown>;

export function requiredString(payload: Payload, member: string, agent: string): string {
  const value = payload[member];
  if (typeof value !== 'string' || value === '') {
    throw new PayloadError('missing_field', `The ${agent} payload has no "${member}" string; the event was skipped.`);
  }
  return value;
}

export function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function isObject(value: unknown): value is Payload {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `PostToolUse`, `post_tool_use` and `postToolUse` name the same event. */
export function eventKey(event: string): string {
  return event.replace(/[_\s-]/g, '').toLowerCase();
}

export function promptLength(value: unknown): number | undefined {
  return typeof value === 'string' ? value.length : undefined;
}

/** Edits given as `[{old_string, new_string}]` (Claude MultiEdit, Cursor afterFileEdit). */
export function editFragments(edits: unknown, agent: string): WrittenFragment[] {
  if (!Array.isArray(edits)) throw new PayloadError('missing_field', `The ${agent} payload has no "edits" list; the event was skipped.`);
  return edits.map((edit, index) => {
    if (!isObject(edit) || typeof edit.new_string !== 'string') {
      throw new PayloadError('missing_field', `Edit ${index} of the ${agent} payload has no "new_string" string; the event was skipped.`);
    }
    return { text: edit.new_string, everyOccurrence: edit.replace_all === true };
  });
}
