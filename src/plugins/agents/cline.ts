// Cline hooks are executable files named after the event in .clinerules/hooks/
// (TaskStart, UserPromptSubmit, PostToolUse, TaskComplete, ...): tracer writes
// one small sh script per event that runs `tracer hook cline <event>` and answers
// Cline with `{"cancel": false}` on stdout, as every Cline hook must. Payloads have
// `clineVersion`, `hookName`, `taskId` (the conversation), `workspaceRoots[]`,
// `model: {provider, slug}`, and the event's data nested under its camel-cased
// name: `postToolUse: {toolName, parameters}` with `write_to_file`
// (`path`, `content`) or `replace_in_file` (`path`, `diff` of SEARCH/REPLACE
// blocks); paths are relative to the workspace root.
import { isAbsolute, join, resolve, sep } from 'node:path';
import {
  agentPlugin,
  eventKey,
  isObject,
  optionalString,
  PayloadError,
  promptLength,
  requiredString,
  userHome,
  type AgentAdapter,
  type FileWrite,
  type HookEvent,
  type OwnedFile,
  type Payload,
} from '../../plugin/agent.js';

const EVENTS = ['TaskStart', 'TaskResume', 'UserPromptSubmit', 'PostToolUse', 'TaskComplete', 'TaskCancel'];
const TURN_ENDS = new Set(['taskcomplete', 'taskcancel']);

export function normalizeCline(event: string, payload: Payload): HookEvent {
  const key = eventKey(optionalString(payload.hookName) ?? event);
  const roots = (Array.isArray(payload.workspaceRoots) ? payload.workspaceRoots : []).filter(
    (root): root is string => typeof root === 'string' && root !== '',
  );
  const data = isObject(payload.postToolUse) ? payload.postToolUse : {};
  const tool = optionalString(data.toolName) ?? optionalString(data.tool);
  const writes = key === 'posttooluse' && tool !== undefined ? clineWrites(tool, data.parameters) : [];
  const prompt = isObject(payload.userPromptSubmit) ? (payload.userPromptSubmit.prompt ?? payload.userPromptSubmit.userMessage) : undefined;
  const model = isObject(payload.model) ? optionalString(payload.model.slug) : optionalString(payload.model);
  return {
    agent: 'cline',
    event,
    conversationId: requiredString(payload, 'taskId', 'cline'),
    model,
    tool,
    cwd: rootHolding(roots, writes),
    writes,
    promptChars: key === 'userpromptsubmit' ? promptLength(prompt) : undefined,
    endsTurn: TURN_ENDS.has(key),
    ...(key === 'posttooluse' && writes.length === 0 ? { nothingToRecord: true as const } : {}),
  };
}

function clineWrites(tool: string, parameters: unknown): FileWrite[] {
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
};

export default agentPlugin(cline);
