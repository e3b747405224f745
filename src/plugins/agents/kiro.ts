// Kiro CLI 3 hooks: tracer's own file .kiro/hooks/tracer.json in Kiro's
// versioned schema (`{version: "v1", hooks: [{name, trigger, matcher, action:
// {type: "command", command}}]}`, kiro.dev/docs/cli/v3/hooks; Kiro IDE 1.x reads
// the same files). Kiro CLI 2 reads hooks only from its agent configurations,
// which tracer does not edit. Payloads have `hook_event_name`, `cwd`, Kiro CLI 3's
// `session_id`, and on tool events `tool_name` and `tool_input`; PostToolUse of
// `fs_write` gives `{command, path, file_text}` (create), `{path, old_str,
// new_str}` (str_replace), `{path, new_str}` (insert, append), or `edits[]`. A
// deferred call batches several tool events in `events[]`. Kiro CLI 2's
// payloads (and 3's outside the terminal UI) name no session: it is derived
// from the folder and the day, stable across the events of one working session
// (and the same for two sessions the same day in the same folder, which tracer
// cannot tell apart).
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  agentPlugin,
  derivedSession,
  eventKey,
  isObject,
  optionalString,
  PayloadError,
  promptLength,
  toolWrite,
  userHome,
  type AgentAdapter,
  type FileWrite,
  type HookContext,
  type HookEvent,
  type Payload,
} from '../../plugin/agent.js';

const WRITE_TOOLS = new Set(['fs_write', 'write']);

export function normalizeKiro(event: string, payload: Payload, context: HookContext): HookEvent {
  const key = eventKey(optionalString(payload.hook_event_name) ?? event);
  const calls = Array.isArray(payload.events) ? payload.events.filter(isObject) : [payload];
  const writes = key === 'posttooluse' ? calls.flatMap(kiroWrites) : [];
  const cwd = optionalString(payload.cwd) ?? optionalString(calls[0]?.cwd);
  const tool = optionalString(payload.tool_name) ?? optionalString(calls[0]?.tool_name);
  const sessionId = optionalString(payload.session_id);
  const transcript = key === 'stop' && sessionId !== undefined ? sessionStore(sessionId, context.env) : undefined;
  return {
    agent: 'kiro',
    event,
    conversationId: optionalString(payload.session_id) ?? derivedSession('kiro', cwd ?? context.cwd),
    model: optionalString(payload.model),
    tool,
    cwd,
    writes,
    promptChars: key === 'userpromptsubmit' ? promptLength(payload.prompt) : undefined,
    endsTurn: key === 'stop',
    reportedSummary: key === 'stop' ? optionalString(payload.assistant_response ?? payload.last_assistant_message) : undefined,
    ...transcript,
    ...(key === 'posttooluse' && writes.length === 0 ? { nothingToRecord: true as const } : {}),
  };
}

/**
 * Where Kiro CLI keeps the session its payload names: a JSONL file of its own
 * (`~/.kiro/sessions/cli/<id>.jsonl`, snapshotted as it is), else the SQLite
 * store of earlier releases (`data.sqlite3` in its data folder, whose row the
 * reader writes out). A payload without a session id (Kiro CLI 2) names none.
 */
function sessionStore(sessionId: string, env: NodeJS.ProcessEnv): Pick<HookEvent, 'transcriptPath' | 'transcriptExport'> | undefined {
  if (!/^[\w.-]{1,200}$/.test(sessionId) || sessionId.startsWith('.')) return undefined;
  const home = userHome(env);
  const file = join(home, '.kiro', 'sessions', 'cli', `${sessionId}.jsonl`);
  if (existsSync(file)) return { transcriptPath: file };
  const database = [
    join(env.XDG_DATA_HOME?.trim() ? resolve(env.XDG_DATA_HOME) : join(home, '.local', 'share'), 'kiro-cli', 'data.sqlite3'),
    join(home, 'Library', 'Application Support', 'kiro-cli', 'data.sqlite3'),
  ].find((path) => existsSync(path));
  return database ? { transcriptPath: database, transcriptExport: true } : undefined;
}

function kiroWrites(call: Payload): FileWrite[] {
  const tool = optionalString(call.tool_name);
  if (tool === undefined || !WRITE_TOOLS.has(tool)) return [];
  const input = isObject(call.tool_input) ? call.tool_input : {};
  if (Array.isArray(input.edits)) {
    const path = optionalString(input.path) ?? optionalString(input.file_path);
    if (path === undefined) throw new PayloadError('missing_field', 'The kiro fs_write payload has no "path"; the event was skipped.');
    return input.edits
      .filter(isObject)
      .map((edit) => toolWrite('kiro', tool, { path, ...edit }, ['path'], ['new_str', 'new_string', 'content']));
  }
  return [toolWrite('kiro', tool, input, ['path', 'file_path'], ['file_text', 'new_str', 'content'])];
}

export const kiro: AgentAdapter = {
  id: 'kiro',
  title: 'Kiro CLI',
  install: {
    kind: 'settings',
    layout: 'list',
    projectFile: '.kiro/hooks/tracer.json',
    globalFile: (env) => join(userHome(env), '.kiro', 'hooks', 'tracer.json'),
    skeleton: { version: 'v1' },
    // PascalCase triggers, the ones Kiro CLI 3 documents (no session-start trigger: its payloads name the session).
    // The matcher is a regular expression over the tool name.
    events: [{ event: 'UserPromptSubmit' }, { event: 'PostToolUse', matcher: 'fs_write|write' }, { event: 'Stop' }],
  },
  installNote:
    'Kiro CLI 3 runs this file; Kiro CLI 2 reads hooks only from its agent configurations (docs/plugins.md says what to add there).',
  normalize: normalizeKiro,
  // The reader is imported on first use: the hook, which loads this module on every tool use, never loads it.
  transcript: () => import('./transcripts/kiro.js').then((module) => module.kiroTranscript),
};

export default agentPlugin(kiro);
