// Windsurf Cascade hooks (.windsurf/hooks.json, `{hooks: {event: [{command}]}}`).
// Every payload has `agent_action_name`, `trajectory_id` (the conversation),
// `execution_id` (the turn), `timestamp` and `tool_info`; `model_name` names the
// model. post_write_code gives `tool_info.file_path` and `tool_info.edits[]`
// (`old_string` empty: a new file); pre_user_prompt `tool_info.user_prompt`;
// post_cascade_response_with_transcript `tool_info.transcript_path` (Windsurf
// keeps it at ~/.windsurf/transcripts/<trajectory_id>.jsonl, the fallback when a
// release leaves the member out). There is no top-level `cwd`: the edited
// file's folder says where the project is.
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import {
  agentPlugin,
  editFragments,
  eventKey,
  isObject,
  lastTextInJsonl,
  optionalString,
  promptLength,
  requiredString,
  userHome,
  type AgentAdapter,
  type HookContext,
  type HookEvent,
  type Payload,
} from '../../plugin/agent.js';

export function normalizeWindsurf(event: string, payload: Payload, context: HookContext): HookEvent {
  const key = eventKey(optionalString(payload.agent_action_name) ?? event);
  const info = isObject(payload.tool_info) ? payload.tool_info : {};
  const filePath = optionalString(info.file_path);
  const writes =
    key === 'postwritecode'
      ? [{ filePath: requiredString(info, 'file_path', 'windsurf'), fragments: editFragments(info.edits, 'windsurf') }]
      : [];
  const endsTurn = key === 'postcascaderesponsewithtranscript';
  const conversationId = requiredString(payload, 'trajectory_id', 'windsurf');
  return {
    agent: 'windsurf',
    event,
    conversationId,
    turnId: optionalString(payload.execution_id),
    model: optionalString(payload.model_name),
    tool: key === 'postwritecode' ? 'write_code' : undefined,
    cwd: optionalString(info.cwd) ?? (filePath !== undefined && isAbsolute(filePath) ? dirname(filePath) : undefined),
    writes,
    promptChars: key === 'preuserprompt' ? promptLength(info.user_prompt) : undefined,
    transcriptPath: endsTurn ? (optionalString(info.transcript_path) ?? savedTranscript(conversationId, context)) : undefined,
    endsTurn,
    reportedSummary: optionalString(info.response),
  };
}

function savedTranscript(trajectoryId: string, context: HookContext): string | undefined {
  // The id becomes a file name: one that could leave the folder names none.
  if (!/^[\w.-]+$/.test(trajectoryId) || trajectoryId.startsWith('.')) return undefined;
  const path = join(userHome(context.env), '.windsurf', 'transcripts', `${trajectoryId}.jsonl`);
  return existsSync(path) ? path : undefined;
}

export const windsurf: AgentAdapter = {
  id: 'windsurf',
  title: 'Windsurf Cascade',
  install: {
    kind: 'settings',
    layout: 'flat',
    projectFile: '.windsurf/hooks.json',
    globalFile: (env) => join(userHome(env), '.codeium', 'windsurf', 'hooks.json'),
    entryMembers: { show_output: false },
    events: [{ event: 'pre_user_prompt' }, { event: 'post_write_code' }, { event: 'post_cascade_response_with_transcript' }],
  },
  normalize: normalizeWindsurf,
  async closingMessage(transcriptPath, reported) {
    if (reported !== undefined) return { text: reported, final: true };
    // The transcript's steps: the last planner_response is Cascade's closing message.
    const text = await lastTextInJsonl(transcriptPath, (entry) =>
      entry.type === 'planner_response' && isObject(entry.planner_response) ? optionalString(entry.planner_response.response) : undefined,
    );
    return { text, final: true };
  },
  // The reader is imported on first use: the hook, which loads this module on every tool use, never loads it.
  transcript: () => import('./transcripts/windsurf.js').then((module) => module.windsurfTranscript),
};

export default agentPlugin(windsurf);
