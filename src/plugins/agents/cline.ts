// Cline hooks are executable files named after the event in .clinerules/hooks/
// (TaskStart, UserPromptSubmit, PostToolUse, TaskComplete, ...): tracer writes
// one small sh script per event that runs `tracer hook cline <event>` and answers
// Cline with `{"cancel": false}` on stdout, as every Cline hook must. Payloads have
// `clineVersion`, `hookName`, `taskId` (the conversation), `workspaceRoots[]`,
// `model: {provider, slug}`, and the event's data nested under its camel-cased
// name: `postToolUse: {toolName, parameters}` with `write_to_file`
// (`path`, `content`) or `replace_in_file` (`path`, `diff` of SEARCH/REPLACE
// blocks); paths are relative to the workspace root.
// Cline's SDK-based releases (cline/cline `sdk/packages/core/src/hooks/
// hook-file-hooks.ts`) run the same hook files with other names and members:
// `hookName` is `tool_result` for PostToolUse (`tool_result: {id, name, input,
// output, ...}`, the input as the tool got it), `tool_call` for PreToolUse
// (`tool_call: {id, name, input}`, before the tool ran), `prompt_submit`,
// `agent_end` (`turn`), `agent_abort`; no `model`. Their file tools are `editor`
// (`path`, `old_text`, `new_text`) and `apply_patch` (a patch in `input`).
import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve, sep } from 'node:path';
import {
  agentPlugin,
  eventKey,
  isObject,
  optionalString,
  parseApplyPatch,
  PayloadError,
  promptLength,
  requiredString,
  toolWrite,
  userHome,
  type AgentAdapter,
  type FileWrite,
  type HookContext,
  type HookEvent,
  type OwnedFile,
  type Payload,
} from '../../plugin/agent.js';

const EVENTS = ['TaskStart', 'TaskResume', 'UserPromptSubmit', 'PostToolUse', 'TaskComplete', 'TaskCancel'];
const TURN_ENDS = new Set(['taskcomplete', 'taskcancel']);
/** The SDK's hook names, as the hook files' own. */
const SDK_EVENTS: Readonly<Record<string, string>> = {
  tool_result: 'posttooluse',
  tool_call: 'pretooluse',
  prompt_submit: 'userpromptsubmit',
  agent_start: 'taskstart',
  agent_resume: 'taskresume',
  agent_end: 'taskcomplete',
  agent_abort: 'taskcancel',
};

export function normalizeCline(event: string, payload: Payload, context?: HookContext): HookEvent {
  const hookName = optionalString(payload.hookName) ?? event;
  const key = SDK_EVENTS[hookName] ?? eventKey(hookName);
  const roots = (Array.isArray(payload.workspaceRoots) ? payload.workspaceRoots : []).filter(
    (root): root is string => typeof root === 'string' && root !== '',
  );
  const call = toolCall(payload);
  const writes = key === 'posttooluse' && call.tool !== undefined ? clineWrites(call.tool, call.input) : [];
  const prompt = isObject(payload.userPromptSubmit) ? (payload.userPromptSubmit.prompt ?? payload.userPromptSubmit.userMessage) : undefined;
  const model = isObject(payload.model) ? optionalString(payload.model.slug) : optionalString(payload.model);
  const turn = isObject(payload.turn) ? optionalString(payload.turn.outputText) : undefined;
  const isTool = key === 'posttooluse' || key === 'pretooluse';
  const conversationId = requiredString(payload, 'taskId', 'cline');
  const endsTurn = TURN_ENDS.has(key);
  return {
    agent: 'cline',
    event,
    conversationId,
    model,
    tool: call.tool,
    cwd: rootHolding(roots, writes),
    writes,
    promptChars: key === 'userpromptsubmit' ? promptLength(prompt) : undefined,
    transcriptPath: endsTurn && context ? taskMessages(conversationId, context.env) : undefined,
    endsTurn,
    reportedSummary: key === 'taskcomplete' ? turn : undefined,
    // A pre-tool event comes before the file is written: the post-tool one records it.
    ...(isTool && writes.length === 0 ? { nothingToRecord: true as const } : {}),
  };
}

/** The tool and its input: the SDK's `tool_result`/`tool_call` carry the input as the tool got it; the older `postToolUse.parameters` holds strings. */
function toolCall(payload: Payload): { tool?: string; input?: unknown } {
  const sdk = isObject(payload.tool_result) ? payload.tool_result : isObject(payload.tool_call) ? payload.tool_call : undefined;
  if (sdk !== undefined && optionalString(sdk.name) !== undefined) return { tool: optionalString(sdk.name), input: sdk.input };
  const data = isObject(payload.postToolUse) ? payload.postToolUse : isObject(payload.preToolUse) ? payload.preToolUse : {};
  return { tool: optionalString(data.toolName) ?? optionalString(data.tool), input: data.parameters };
}

function clineWrites(tool: string, parameters: unknown): FileWrite[] {
  if (tool === 'editor') return [toolWrite('cline', tool, parameters, ['path'], ['new_text'])];
  if (tool === 'apply_patch') {
    const patch = isObject(parameters) ? parameters.input : parameters;
    if (typeof patch !== 'string')
      throw new PayloadError('missing_field', 'The cline apply_patch payload has no patch in "input"; the event was skipped.');
    return parseApplyPatch(patch);
  }
  if (tool !== 'write_to_file' && tool !== 'replace_in_file') return [];
  const input = isObject(parameters) ? parameters : {};
  const filePath = optionalString(input.path);
  if (filePath === undefined)
    throw new PayloadError('missing_field', `The cline ${tool} payload has no "parameters.path"; the event was skipped.`);
  const text = tool === 'write_to_file' ? input.content : input.diff;
  if (typeof text !== 'string') {
    const member = tool === 'write_to_file' ? 'content' : 'diff';
    throw new PayloadError('missing_field', `The cline ${tool} payload has no "parameters.${member}"; the event was skipped.`);
  }
  if (tool === 'write_to_file') return [{ filePath, fragments: [{ text }] }];
  return [{ filePath, fragments: replaceBlocks(text).map((replacement) => ({ text: replacement, wholeLines: true })) }];
}

/** The REPLACE halves of a diff's `------- SEARCH` / `=======` / `+++++++ REPLACE` blocks (older Cline: `<<<<<<<` and `>>>>>>>`). */
export function replaceBlocks(diff: string): string[] {
  const blocks: string[] = [];
  let lines: string[] | undefined;
  for (const raw of diff.split('\n')) {
    const line = raw.replace(/\r$/, '');
    if (/^(?:-{3,}|<{3,}) ?SEARCH\s*$/.test(line)) lines = undefined;
    else if (/^={3,}\s*$/.test(line)) lines = [];
    else if (/^(?:\+{3,}|>{3,}) ?REPLACE\s*$/.test(line)) {
      if (lines && lines.length > 0) blocks.push(lines.join('\n'));
      lines = undefined;
    } else if (lines) lines.push(line);
  }
  return blocks;
}

/** The folders of the editors whose extension storage may hold Cline's tasks (VS Code and its forks). */
const EDITORS = 'Code|Code - Insiders|VSCodium|Cursor|Windsurf|Kiro'.split('|');

/**
 * The task's ui_messages.json: no payload names it. Cline's own data folder
 * (its CLI, and the extension since it shares it: `CLINE_DIR`, else `~/.cline`)
 * first, then each editor's extension storage.
 */
export function taskMessages(taskId: string, env: NodeJS.ProcessEnv): string | undefined {
  // The id becomes a folder name: one that could leave the tasks folder names none.
  if (!/^[\w.-]{1,200}$/.test(taskId) || taskId.startsWith('.')) return undefined;
  const home = userHome(env);
  const clineDir = env.CLINE_DIR?.trim() ? resolve(env.CLINE_DIR) : join(home, '.cline');
  const storages = [join(clineDir, 'data')];
  const configRoots = [
    env.XDG_CONFIG_HOME?.trim() ? resolve(env.XDG_CONFIG_HOME) : join(home, '.config'),
    join(home, 'Library', 'Application Support'),
    ...(env.APPDATA?.trim() ? [resolve(env.APPDATA)] : []),
  ];
  for (const root of configRoots)
    for (const editor of EDITORS) storages.push(join(root, editor, 'User', 'globalStorage', 'saoudrizwan.claude-dev'));
  return storages.map((storage) => join(storage, 'tasks', taskId, 'ui_messages.json')).find((path) => existsSync(path));
}

function rootHolding(roots: readonly string[], writes: readonly FileWrite[]): string | undefined {
  const file = writes[0]?.filePath;
  if (file !== undefined && isAbsolute(file)) {
    const holding = roots.filter((root) => resolve(file).startsWith(resolve(root) + sep));
    if (holding.length > 0) return holding.reduce((a, b) => (b.length > a.length ? b : a));
  }
  return roots[0];
}

function hookScript(event: string, command: string): OwnedFile {
  const text = [
    '#!/bin/sh',
    `# Installed by tracer init: records Cline's ${event} event (tracer init --uninstall removes this file).`,
    `${command} >/dev/null 2>&1`,
    `printf '%s\\n' '{"cancel":false}'`,
    '',
  ].join('\n');
  return { path: event, text, executable: true };
}

export const cline: AgentAdapter = {
  id: 'cline',
  title: 'Cline',
  install: {
    kind: 'files',
    projectDir: '.clinerules/hooks',
    globalDir: (env) => join(userHome(env), 'Documents', 'Cline', 'Hooks'),
    files: (command) => EVENTS.map((event) => hookScript(event, command(event))),
  },
  installNote: 'Cline runs hook files only with hooks enabled in its settings (macOS and Linux).',
  normalize: normalizeCline,
  // The reader is imported on first use: the hook, which loads this module on every tool use, never loads it.
  transcript: () => import('./transcripts/cline.js').then((module) => module.clineTranscript),
};

export default agentPlugin(cline);
