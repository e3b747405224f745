// Gemini CLI hooks (`hooks` in .gemini/settings.json, Claude Code's grouped
// layout). Every payload has `session_id`, `transcript_path`, `cwd`,
// `hook_event_name` and `timestamp`. AfterTool runs after `write_file`
// (`file_path`, `content`) or `replace` (`file_path`, `old_string`, `new_string`);
// BeforeAgent carries the `prompt`, AfterAgent the `prompt_response` that closes
// the turn. No payload names the model: its chat recording does, on each
// `{"type": "gemini", "model": ...}` message.
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

const WRITE_TOOLS: Readonly<Record<string, readonly string[]>> = { write_file: ['content'], replace: ['new_string'] };
const MODEL = /"model":"([^"\\]{1,250})"/;

export function normalizeGemini(event: string, payload: Payload): HookEvent {
  const key = eventKey(optionalString(payload.hook_event_name) ?? event);
  const tool = optionalString(payload.tool_name);
  const texts = tool === undefined ? undefined : WRITE_TOOLS[tool];
  const writes =
    key === 'aftertool' && tool !== undefined && texts
      ? [toolWrite('gemini', tool, payload.tool_input, ['file_path', 'absolute_path', 'path'], texts)]
      : [];
  const transcript = optionalString(payload.transcript_path);
  const endsTurn = key === 'afteragent' || key === 'sessionend';
  return {
    agent: 'gemini',
    event,
    conversationId: requiredString(payload, 'session_id', 'gemini'),
    model: optionalString(payload.model) ?? (writes.length > 0 && transcript ? modelFromChat(transcript) : undefined),
    tool,
    cwd: optionalString(payload.cwd),
    writes,
    promptChars: key === 'beforeagent' ? promptLength(payload.prompt) : undefined,
    transcriptPath: endsTurn ? transcript : undefined,
    endsTurn,
    reportedSummary: key === 'afteragent' ? optionalString(payload.prompt_response) : undefined,
  };
}

/** The model of the chat's latest Gemini message. */
export function modelFromChat(path: string): string | undefined {
  return findFromEnd(path, (line) => (line.includes('"type":"gemini"') ? MODEL.exec(line)?.[1] : undefined));
}

export const gemini: AgentAdapter = {
  id: 'gemini',
  title: 'Gemini CLI',
  install: {
    kind: 'settings',
    layout: 'grouped',
    projectFile: '.gemini/settings.json',
    globalFile: (env) => join(userHome(env), '.gemini', 'settings.json'),
    events: [
      { event: 'SessionStart' },
      { event: 'BeforeAgent' },
      { event: 'AfterTool', matcher: 'write_file|replace' },
      { event: 'AfterAgent' },
      { event: 'SessionEnd' },
    ],
  },
  installNote:
    "Gemini CLI runs a project's hooks only once the folder is trusted: trust it when Gemini CLI asks (or with /permissions), else nothing is recorded.",
  normalize: normalizeGemini,
  async closingMessage(transcriptPath, reported) {
    if (reported !== undefined) return { text: reported, final: true };
    const text = await lastTextInJsonl(transcriptPath, (entry) => {
      if (entry.type !== 'gemini') return undefined;
      const texts = textBlocks(isObject(entry.content) ? [entry.content] : entry.content);
      return texts.length > 0 ? texts.join('\n\n') : undefined;
    });
    return { text, final: true };
  },
  // The reader is imported on first use: the hook, which loads this module on every tool use, never loads it.
  transcript: () => import('./transcripts/gemini.js').then((module) => module.geminiTranscript),
};

export default agentPlugin(gemini);
