// Qwen Code hooks (`hooks` in .qwen/settings.json), shaped as Claude Code's:
// `session_id`, `transcript_path`, `cwd`, `hook_event_name`; PostToolUse runs
// after `write_file` (`file_path`, `content`) or `edit` (`file_path`,
// `old_string`, `new_string`, `replace_all`). Its JSONL chats hold
// `{type: "assistant", model, message: {role: "model", parts: [{text}]}}`.
import { join } from 'node:path';
import {
  agentPlugin,
  eventKey,
  findFromEnd,
  isObject,
  lastTextInJsonl,
  optionalString,
  promptLength,
  requiredString,
  textBlocks,
  toolWrite,
  userHome,
  type AgentAdapter,
  type HookEvent,
  type Payload,
} from '../../plugin/agent.js';

const WRITE_TOOLS: Readonly<Record<string, readonly string[]>> = { write_file: ['content'], edit: ['new_string'] };
const TURN_ENDS = new Set(['stop', 'sessionend']);
const MODEL = /"model":"([^"\\]{1,250})"/;

export function normalizeQwen(event: string, payload: Payload): HookEvent {
  const key = eventKey(event);
  const tool = optionalString(payload.tool_name);
  const texts = tool === undefined ? undefined : WRITE_TOOLS[tool];
  const writes =
    key === 'posttooluse' && tool !== undefined && texts
      ? [toolWrite('qwen', tool, payload.tool_input, ['file_path', 'absolute_path', 'path'], texts)]
      : [];
  const transcript = optionalString(payload.transcript_path);
  const endsTurn = TURN_ENDS.has(key);
  return {
    agent: 'qwen',
    event,
    conversationId: requiredString(payload, 'session_id', 'qwen'),
    model: optionalString(payload.model) ?? (writes.length > 0 && transcript ? modelFromChat(transcript) : undefined),
    tool,
    cwd: optionalString(payload.cwd),
    writes,
    promptChars: key === 'userpromptsubmit' ? promptLength(payload.prompt) : undefined,
    transcriptPath: endsTurn ? transcript : undefined,
    endsTurn,
    reportedSummary: endsTurn ? optionalString(payload.last_assistant_message) : undefined,
  };
}

function modelFromChat(path: string): string | undefined {
  return findFromEnd(path, (line) => (line.includes('"type":"assistant"') ? MODEL.exec(line)?.[1] : undefined));
}

export const qwen: AgentAdapter = {
  id: 'qwen',
  title: 'Qwen Code',
  install: {
    kind: 'settings',
    layout: 'grouped',
    projectFile: '.qwen/settings.json',
    globalFile: (env) => join(userHome(env), '.qwen', 'settings.json'),
    events: [
      { event: 'SessionStart' },
      { event: 'UserPromptSubmit' },
      { event: 'PostToolUse', matcher: 'write_file|edit' },
      { event: 'Stop' },
      { event: 'SessionEnd' },
    ],
  },
  normalize: normalizeQwen,
  async closingMessage(transcriptPath, reported) {
    if (reported !== undefined) return { text: reported, final: true };
    const text = await lastTextInJsonl(transcriptPath, (entry) => {
      if (entry.type !== 'assistant' || !isObject(entry.message)) return undefined;
      const texts = textBlocks(entry.message.parts ?? entry.message.content);
      return texts.length > 0 ? texts.join('\n\n') : undefined;
    });
    return { text, final: true };
  },
  // The reader is imported on first use: the hook, which loads this module on every tool use, never loads it.
  transcript: () => import('./transcripts/qwen.js').then((module) => module.qwenTranscript),
};

export default agentPlugin(qwen);
