// Cline's task messages (`tasks/<taskId>/ui_messages.json` in Cline's data
// folder: `~/.cline/data/` for its CLI, the editor's extension storage for the
// VS Code extension): one JSON array, rewritten whole as the task goes, of
// `{ts, type: "say" | "ask", say | ask, text, partial, modelInfo,
// conversationHistoryIndex}`. The task opens as a `text` of the person's (with
// its `images` and `files`, at history index -1; `task` in some releases),
// later prompts are `user_feedback`; other `text`, `completion_result` and the
// follow-up questions are Cline's. A streamed message is updated in place, so
// one left `partial` is its last state, read as it stands; `tool` holds a JSON `{tool, path, diff |
// content}` (editedExistingFile, newFileCreated, fileDeleted, readFile, ...);
// `command` / `command_output` the shell. Each model request is an
// `api_req_started` whose text is JSON with `tokensIn` (input without cache),
// `tokensOut`, `cacheWrites`, `cacheReads` once the request has finished.
import {
  isObject,
  millisToIso,
  parseMaybeJson,
  searchReplaceEdit,
  str,
  textOf,
  writeEdit,
  type ItemDraft,
  type ReadState,
  type ToolEdit,
  type TranscriptFormat,
  type UsageDraft,
} from '../../../plugin/transcript.js';

const WRITE_TOOLS = new Set(['editedExistingFile', 'newFileCreated', 'fileDeleted']);

function items(record: unknown, state: ReadState): ItemDraft[] {
  if (!isObject(record) || (record.type !== 'say' && record.type !== 'ask')) return [];
  const ts = millisToIso(record.ts);
  const model = isObject(record.modelInfo) ? str(record.modelInfo.modelId) : undefined;
  if (model) state.model = model;
  const kind = str(record.say) ?? str(record.ask);
  const text = typeof record.text === 'string' ? record.text : '';
  switch (kind) {
    case 'task':
    case 'user_feedback':
      return [{ kind: 'message', role: 'person', text, ts }];
    case 'text':
      if (record.conversationHistoryIndex === -1 || Array.isArray(record.images)) return [{ kind: 'message', role: 'person', text, ts }];
      return [{ kind: 'message', role: 'assistant', text, ts, model }];
    case 'completion_result':
      return [{ kind: 'message', role: 'assistant', text, ts, model }];
    case 'followup':
    case 'plan_mode_respond':
    case 'act_mode_respond': {
      const parsed = parseMaybeJson(text);
      const shown = isObject(parsed) ? (str(parsed.question) ?? str(parsed.response) ?? text) : text;
      return [{ kind: 'message', role: 'assistant', text: shown, ts, model }];
    }
    case 'reasoning':
      return [{ kind: 'thinking', text: text || (str(record.reasoning) ?? ''), ts, model }];
    case 'tool': {
      const parsed = parseMaybeJson(text);
      const name = isObject(parsed) ? (str(parsed.tool) ?? 'tool') : 'tool';
      // Asked (the person approves it) or said (approved ahead): either way the one record of the call.
      return [{ kind: 'tool_call', id: String(record.ts ?? ''), name, input: parsed, ...toolEdit(name, parsed), ts, model }];
    }
    case 'command':
      return [{ kind: 'tool_call', id: String(record.ts ?? ''), name: 'execute_command', input: text, ts, model }];
    case 'command_output':
      return [{ kind: 'tool_result', text, ts }];
    case 'use_mcp_server':
      return [{ kind: 'tool_call', name: 'use_mcp_server', input: parseMaybeJson(text), ts, model }];
    case 'mcp_server_response':
      return [{ kind: 'tool_result', text, ts }];
    case 'error':
    case 'diff_error':
    case 'api_req_failed':
      return [{ kind: 'meta', text: `${kind}: ${textOf(text)}`, ts }];
    default:
      return [];
  }
}

function toolEdit(name: string, input: unknown): Partial<ToolEdit> {
  if (!isObject(input) || !WRITE_TOOLS.has(name)) return {};
  const file = str(input.path);
  if (file === undefined) return {};
  if (name === 'newFileCreated' && typeof input.content === 'string') return writeEdit(file, input.content);
  if (name === 'editedExistingFile' && typeof input.diff === 'string') return searchReplaceEdit(file, input.diff);
  return { files: [file] };
}

function usage(record: unknown, state: ReadState): UsageDraft[] {
  if (!isObject(record) || record.type !== 'say' || (record.say !== 'api_req_started' && record.say !== 'subagent_usage')) return [];
  const info = parseMaybeJson(record.text);
  if (!isObject(info) || (!('tokensIn' in info) && !('tokensOut' in info))) return [];
  const model = isObject(record.modelInfo) ? str(record.modelInfo.modelId) : state.model;
  return [
    {
      key: `${record.say}:${String(record.ts)}`,
      ts: millisToIso(record.ts),
      model,
      ...(record.say === 'subagent_usage' ? { scope: 'session' as const } : {}),
      tokens: { input: info.tokensIn, output: info.tokensOut, cacheWrite: info.cacheWrites, cacheRead: info.cacheReads },
    },
  ];
}

export const clineTranscript: TranscriptFormat = {
  agent: 'cline',
  items,
  mayStartTurn: (text) => /"say":\s*"(?:task|user_feedback|text)"|"modelInfo"/.test(text),
  usage: { mayHold: (text) => /"api_req_started"|"subagent_usage"/.test(text), read: usage },
  recognizes: (record) => isObject(record) && typeof record.ts === 'number' && (record.type === 'say' || record.type === 'ask'),
};
