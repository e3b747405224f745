// What a hook call means once the agent's own payload shape is set aside. Each
// agent adapter (src/plugins/agents/) turns its payload into this.

import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { FileWrite, HookEvent, Payload, ReportedTokens, WrittenFragment } from '../../core/agent.js';

export { AGENT_ID } from '../../core/agent.js';
export type { FileWrite, HookEvent, Payload, ReportedTokens, WrittenFragment };

/** A payload that cannot be recorded; logged, never thrown at the agent. */
export class PayloadError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function requiredString(payload: Payload, member: string, agent: string): string {
  const value = payload[member];
  if (typeof value !== 'string' || value === '') {
    throw new PayloadError('missing_field', `The ${agent} payload has no "${member}" string; the event was skipped.`);
  }
  return value;
}

/**
 * A session id for an agent whose payloads name none (Kiro CLI 2, early Copilot
 * CLI releases): `<agent>-<16 hex>` from the folder and the UTC day, the same
 * for every event of one working session (and for two sessions the same day in
 * the same folder, which tracer cannot tell apart). `at` (ms) is the payload's
 * own time when it has one: the spooled event may be folded later.
 */
export function derivedSession(agent: string, cwd: string, at: number = Date.now()): string {
  const time = new Date(at);
  const day = (Number.isNaN(time.getTime()) ? new Date() : time).toISOString().slice(0, 10);
  const hash = createHash('sha256')
    .update(`${resolve(cwd)}\n${day}`)
    .digest('hex');
  return `${agent}-${hash.slice(0, 16)}`;
}

/** No single turn reads or writes more tokens of one kind than this: a count above it is no count. */
const REPORTED_TOKENS_MAX = 1_000_000_000;

/**
 * The token counts a payload reports in `members` (input, output, and the cache
 * writes and reads when it reports them); undefined when input or output is
 * missing, or any count is not a whole number from 0 to a billion: no count is
 * kept that would have to be refused later.
 */
export function reportedTokens(
  payload: Payload,
  members: { input: string; output: string; cacheWrite?: string; cacheRead?: string },
): ReportedTokens | undefined {
  const count = (member: string | undefined): number | undefined | null => {
    if (member === undefined || payload[member] === undefined) return undefined;
    const value = payload[member];
    return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= REPORTED_TOKENS_MAX ? value : null;
  };
  const [input, output, cacheWrite, cacheRead] = [members.input, members.output, members.cacheWrite, members.cacheRead].map(count);
  if (input === undefined || output === undefined || [input, output, cacheWrite, cacheRead].includes(null)) return undefined;
  return {
    input: input!,
    output: output!,
    ...(typeof cacheWrite === 'number' ? { cacheWrite } : {}),
    ...(typeof cacheRead === 'number' ? { cacheRead } : {}),
  };
}

export function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function isObject(value: unknown): value is Payload {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Cursor's payloads carry its version and workspace roots, also when Cursor runs Claude Code's hooks. */
export function isCursorPayload(payload: Payload): boolean {
  return (
    typeof payload.cursor_version === 'string' || (Array.isArray(payload.workspace_roots) && typeof payload.conversation_id === 'string')
  );
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

/**
 * Claude Code's file tools, whose inputs Codex forks and Cursor (running Claude
 * Code's hooks) send too. Kept here, not in claude-code.ts, so that no agent
 * loads another agent's module for them.
 */
export const FILE_TOOLS = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit']);

export function claudeFileWrites(tool: string, input: unknown): FileWrite[] {
  if (tool !== 'NotebookEdit') return [claudeFileWrite(tool, input)];
  const write = notebookWrite(input);
  return write ? [write] : [];
}

/**
 * A notebook is JSON: each line of a cell's source is a JSON string on its own
 * line of the .ipynb (`    "x = 1\n",`). The new source's lines are looked up
 * in that spelling, so the commit's lines of the notebook match them.
 */
function notebookWrite(input: unknown): FileWrite | undefined {
  if (!isObject(input) || typeof input.notebook_path !== 'string' || input.notebook_path === '') {
    throw new PayloadError(
      'missing_field',
      'The claude-code NotebookEdit payload has no "tool_input.notebook_path"; the event was skipped.',
    );
  }
  if (input.edit_mode === 'delete') return undefined;
  if (typeof input.new_source !== 'string')
    throw new PayloadError('missing_field', 'The claude-code NotebookEdit payload has no "tool_input.new_source"; the event was skipped.');
  const lines = input.new_source.split('\n');
  const fragments = lines
    .map((line, index) => (index < lines.length - 1 ? `${line}\n` : line))
    .filter((line) => line.trim() !== '')
    .map((line) => ({ text: JSON.stringify(line) }));
  return { filePath: input.notebook_path, fragments };
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

/**
 * A write or edit tool's input `{<path member>, <text member>}` (Gemini's
 * `write_file`, Qwen's `edit`, Droid's `Create`, ...): the first path member and
 * the first text member it has. `replace_all` or `expected_replacements` above 1
 * make every occurrence the agent's.
 */
export function toolWrite(agent: string, tool: string, input: unknown, paths: readonly string[], texts: readonly string[]): FileWrite {
  const fields = isObject(input) ? input : {};
  const filePath = paths.map((member) => fields[member]).find((value): value is string => typeof value === 'string' && value !== '');
  if (filePath === undefined)
    throw new PayloadError('missing_field', `The ${agent} ${tool} payload has no "${paths[0]}" in its tool input; the event was skipped.`);
  const text = texts.map((member) => fields[member]).find((value): value is string => typeof value === 'string');
  if (text === undefined)
    throw new PayloadError('missing_field', `The ${agent} ${tool} payload has no "${texts[0]}" in its tool input; the event was skipped.`);
  const replacements = fields.expected_replacements;
  const everyOccurrence =
    fields.replace_all === true || fields.replaceAll === true || (typeof replacements === 'number' && replacements > 1);
  return { filePath, fragments: [{ text, ...(everyOccurrence ? { everyOccurrence } : {}) }] };
}

/** A JSON string member that holds an object (Copilot's `toolArgs`); an object is taken as it is. */
export function jsonObject(value: unknown, what: string, agent: string): Payload {
  if (isObject(value)) return value;
  if (typeof value === 'string') {
    try {
      const parsed: unknown = JSON.parse(value);
      if (isObject(parsed)) return parsed;
    } catch {
      // reported below
    }
  }
  throw new PayloadError(
    'invalid_payload',
    `The ${agent} payload's "${what}" is not a JSON object (or a string holding one); the event was skipped.`,
  );
}

/** The user's home folder: $HOME when set (tests and sandboxes set it), else the account's. */
export function userHome(env: NodeJS.ProcessEnv): string {
  return env.HOME?.trim() ? resolve(env.HOME) : homedir();
}

/** A folder an environment variable may move (CLAUDE_CONFIG_DIR, CODEX_HOME), else `fallback` under the home folder. */
export function configDir(env: NodeJS.ProcessEnv, variable: string, fallback: string): string {
  const value = env[variable]?.trim();
  return value ? resolve(value) : join(userHome(env), fallback);
}
