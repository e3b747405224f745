// GitHub Copilot CLI hooks: tracer's own file .github/hooks/tracer.json
// (`{version: 1, hooks: {event: [{type: "command", bash, timeoutSec}]}}`; Copilot
// loads every .github/hooks/*.json). Members are camelCase and timestamps are
// milliseconds: `sessionId`, `cwd`, `timestamp`; postToolUse has `toolName` and
// `toolArgs`, a JSON string: `create` gives `{path, file_text}`, `edit`
// `{path, old_str, new_str}`. userPromptSubmitted has `prompt`. agentStop is the
// only event naming the transcript (`transcriptPath`); a subagent's stop has a
// `toolu_` session id and an empty path. No payload names the model: the
// session's events.jsonl does (`~/.copilot/session-state/<sessionId>/`).
// Early releases sent `sessionId` only on sessionStart and agentStop
// (github/copilot-cli#1425): the other events then get a session derived from
// the folder and the day of their `timestamp`, so their edits are still
// recorded, under a session apart from the one agentStop names.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  agentPlugin,
  derivedSession,
  eventKey,
  findFromEnd,
  isObject,
  jsonObject,
  lastTextInJsonl,
  optionalString,
  promptLength,
  textBlocks,
  toolWrite,
  userHome,
  type AgentAdapter,
  type HookContext,
  type HookEvent,
  type Payload,
} from '../../plugin/agent.js';

const WRITE_TOOLS: Readonly<Record<string, readonly string[]>> = { create: ['file_text', 'content'], edit: ['new_str', 'new_string'] };
const MODEL = /"(?:newModel|selectedModel|model)":"([^"\\]{1,250})"/;

export function normalizeCopilot(event: string, payload: Payload, context: HookContext): HookEvent {
  const key = eventKey(event);
  const timestamp = typeof payload.timestamp === 'number' && Number.isFinite(payload.timestamp) ? payload.timestamp : undefined;
  const conversationId =
    optionalString(payload.sessionId) ?? derivedSession('copilot', optionalString(payload.cwd) ?? context.cwd, timestamp);
  const tool = optionalString(payload.toolName);
  const texts = tool === undefined ? undefined : WRITE_TOOLS[tool];
  const isTool = key === 'posttooluse' || key === 'pretooluse';
  const writes =
    key === 'posttooluse' && tool !== undefined && texts
      ? [toolWrite('copilot', tool, jsonObject(payload.toolArgs, 'toolArgs', 'copilot'), ['path', 'file_path'], texts)]
      : [];
  const stopTranscript = key === 'agentstop' ? optionalString(payload.transcriptPath) : undefined;
  const sessionTranscript = sessionEvents(conversationId, context);
  const endsTurn = stopTranscript !== undefined || key === 'sessionend';
  return {
    agent: 'copilot',
    event,
    conversationId,
    model: writes.length > 0 ? findFromEnd(sessionTranscript, (line) => MODEL.exec(line)?.[1]) : undefined,
    tool,
    cwd: optionalString(payload.cwd),
    writes,
    promptChars: key === 'userpromptsubmitted' ? promptLength(payload.prompt) : undefined,
    transcriptPath: stopTranscript ?? (key === 'sessionend' && existsSync(sessionTranscript) ? sessionTranscript : undefined),
    endsTurn,
    // The hook runs for every tool (Copilot's hooks have no matcher): reads and shell commands are none of tracer's business.
    ...(isTool && writes.length === 0 ? { nothingToRecord: true as const } : {}),
  };
}

function sessionEvents(sessionId: string, context: HookContext): string {
  return join(userHome(context.env), '.copilot', 'session-state', sessionId, 'events.jsonl');
}

export const copilot: AgentAdapter = {
  id: 'copilot',
  title: 'GitHub Copilot CLI',
  install: {
    kind: 'settings',
    layout: 'flat',
    projectFile: '.github/hooks/tracer.json',
    skeleton: { version: 1 },
    commandMember: 'bash',
    entryMembers: { type: 'command', timeoutSec: 30 },
    events: [
      { event: 'sessionStart' },
      { event: 'userPromptSubmitted' },
      { event: 'postToolUse' },
      { event: 'agentStop' },
      { event: 'sessionEnd' },
    ],
  },
  normalize: normalizeCopilot,
  async closingMessage(transcriptPath) {
    const text = await lastTextInJsonl(transcriptPath, (entry) => {
      if (entry.type !== 'assistant.message' || !isObject(entry.data)) return undefined;
      const texts = textBlocks(entry.data.content);
      return texts.length > 0 ? texts.join('\n\n') : undefined;
    });
    return { text, final: true };
  },
  // The reader is imported on first use: the hook, which loads this module on every tool use, never loads it.
  transcript: () => import('./transcripts/copilot.js').then((module) => module.copilotTranscript),
};

export default agentPlugin(copilot);
