// Goose runs the hooks of Open Plugins plugins: tracer installs its own plugin,
// .agents/plugins/tracer/ (`plugin.json` and `hooks/hooks.json` in Claude Code's
// grouped layout). Payloads name the event in `event` and the session in
// `session_id`; tool events have `tool_name`, `tool_input` and `working_dir`
// (not `cwd`). Edit tools are namespaced (`developer__edit`,
// `developer__write`, `..._text_editor`): matched by suffix, with `path` and
// `before`/`after` (edit), `content` (write) or `file_text`/`new_str`
// (text_editor). Stop carries `last_assistant_message`.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  agentPlugin,
  eventKey,
  isObject,
  optionalString,
  promptLength,
  requiredString,
  toolWrite,
  userHome,
  type AgentAdapter,
  type FileWrite,
  type HookContext,
  type HookEvent,
  type HookedEvent,
  type Payload,
} from '../../plugin/agent.js';

const EDIT_TOOL = /(?:edit|write|text_editor)$/;
const EVENTS: readonly HookedEvent[] = [
  { event: 'SessionStart' },
  { event: 'UserPromptSubmit' },
  { event: 'PostToolUse', matcher: '(edit|write|text_editor)$' },
  { event: 'Stop' },
  { event: 'SessionEnd' },
];

export function normalizeGoose(event: string, payload: Payload, context?: HookContext): HookEvent {
  const key = eventKey(optionalString(payload.event) ?? event);
  const tool = optionalString(payload.tool_name);
  const writes = key === 'posttooluse' && tool !== undefined && EDIT_TOOL.test(tool) ? gooseWrites(tool, payload.tool_input) : [];
  const endsTurn = key === 'stop' || key === 'sessionend';
  const conversationId = requiredString(payload, 'session_id', 'goose');
  const transcript = endsTurn && context ? sessionStore(conversationId, context.env) : undefined;
  return {
    agent: 'goose',
    event,
    conversationId,
    model: optionalString(payload.model),
    tool,
    cwd: optionalString(payload.working_dir) ?? optionalString(payload.cwd),
    writes,
    promptChars: key === 'userpromptsubmit' ? promptLength(payload.message ?? payload.prompt) : undefined,
    endsTurn,
    reportedSummary: key === 'stop' ? optionalString(payload.last_assistant_message) : undefined,
    ...transcript,
  };
}

/**
 * Where goose keeps the session: its own `<id>.jsonl` in older releases (a
 * file, snapshotted as it is), else the `sessions.db` all sessions share
 * (whose rows the reader writes out for the snapshot). goose's data folder is
 * XDG's on macOS and Linux, `AppData/Roaming/Block/goose/data` on Windows.
 */
function sessionStore(sessionId: string, env: NodeJS.ProcessEnv): Pick<HookEvent, 'transcriptPath' | 'transcriptExport'> | undefined {
  const home = userHome(env);
  const dirs = [
    join(env.XDG_DATA_HOME?.trim() ? resolve(env.XDG_DATA_HOME) : join(home, '.local', 'share'), 'goose', 'sessions'),
    join(home, 'AppData', 'Roaming', 'Block', 'goose', 'data', 'sessions'),
  ];
  if (/^[\w.-]{1,200}$/.test(sessionId) && !sessionId.startsWith('.')) {
    const file = dirs.map((dir) => join(dir, `${sessionId}.jsonl`)).find((path) => existsSync(path));
    if (file) return { transcriptPath: file };
  }
  const database = dirs.map((dir) => join(dir, 'sessions.db')).find((path) => existsSync(path));
  return database ? { transcriptPath: database, transcriptExport: true } : undefined;
}

function gooseWrites(tool: string, input: unknown): FileWrite[] {
  const fields = isObject(input) ? input : {};
  // text_editor's view and undo write nothing.
  if (typeof fields.command === 'string' && !['write', 'create', 'str_replace', 'insert', 'edit'].includes(fields.command)) return [];
  return [toolWrite('goose', tool, fields, ['path', 'file_path'], ['after', 'content', 'file_text', 'new_str'])];
}

function pluginFiles(command: (event: string) => string) {
  const hooks: Record<string, unknown[]> = {};
  for (const { event, matcher } of EVENTS)
    hooks[event] = [{ ...(matcher ? { matcher } : {}), hooks: [{ type: 'command', command: command(event), timeout: 30 }] }];
  const manifest = {
    name: 'tracer',
    version: '1.0.0',
    description: 'Records goose sessions and the lines they write with tracer (tracer init).',
  };
  return [
    { path: 'plugin.json', text: `${JSON.stringify(manifest, null, 2)}\n` },
    { path: 'hooks/hooks.json', text: `${JSON.stringify({ hooks }, null, 2)}\n` },
  ];
}

export const goose: AgentAdapter = {
  id: 'goose',
  title: 'Goose',
  install: {
    kind: 'files',
    projectDir: '.agents/plugins/tracer',
    globalDir: (env) => join(userHome(env), '.agents', 'plugins', 'tracer'),
    files: pluginFiles,
  },
  installNote: 'goose loads a project plugin when it starts in this folder; restart running goose sessions.',
  normalize: normalizeGoose,
  // The reader is imported on first use: the hook, which loads this module on every tool use, never loads it.
  transcript: () => import('./transcripts/goose.js').then((module) => module.gooseTranscript),
};

export default agentPlugin(goose);
