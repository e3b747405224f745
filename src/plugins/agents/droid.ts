// Factory Droid hooks (.factory/hooks.json, Claude Code's grouped layout and
// payloads: `session_id`, `transcript_path`, `cwd`, `hook_event_name`,
// `tool_name`, `tool_input`; releases that send the common members in camelCase,
// `sessionId` and `transcriptPath`, are read too: recorders of real Droid
// sessions met both). Its file tools: `Create` (`file_path`, `content`),
// `Edit` (`file_path`, `old_str`/`new_str`, or Claude's `old_string`/`new_string`),
// `MultiEdit` (`edits`) and `ApplyPatch` (a patch in Codex's format). Stop may
// carry `last_assistant_message`; transcripts are JSONL,
// `{type: "message", message: {role, content: [{type: "text", text}]}}`, and
// name no model: Droid keeps it beside the transcript, in `<session>.settings.json`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  agentPlugin,
  editFragments,
  eventKey,
  findFromEnd,
  isApplyPatch,
  isObject,
  lastTextInJsonl,
  optionalString,
  parseApplyPatch,
  PayloadError,
  promptLength,
  requiredString,
  textBlocks,
  toolWrite,
  userHome,
  type AgentAdapter,
  type FileWrite,
  type HookEvent,
  type Payload,
} from '../../plugin/agent.js';

const TURN_ENDS = new Set(['stop', 'sessionend']);
const MODEL = /"model":"([^"\\]{1,250})"/;
const PATHS = ['file_path', 'path'];

export function normalizeDroid(event: string, payload: Payload): HookEvent {
  const key = eventKey(event);
  const tool = optionalString(payload.tool_name);
  const writes = key === 'posttooluse' && tool !== undefined ? droidWrites(tool, payload.tool_input) : [];
  const transcript = optionalString(payload.transcript_path) ?? optionalString(payload.transcriptPath);
  const endsTurn = TURN_ENDS.has(key);
  return {
    agent: 'droid',
    event,
    conversationId: optionalString(payload.sessionId) ?? requiredString(payload, 'session_id', 'droid'),
    model: optionalString(payload.model) ?? (writes.length > 0 && transcript ? sessionModel(transcript) : undefined),
    tool,
    cwd: optionalString(payload.cwd),
    writes,
    promptChars: key === 'userpromptsubmit' ? promptLength(payload.prompt) : undefined,
    transcriptPath: endsTurn ? transcript : undefined,
    endsTurn,
    reportedSummary: endsTurn ? optionalString(payload.last_assistant_message) : undefined,
  };
}

/** The session's settings file beside its transcript names the model; older transcripts carry it on the messages. */
function sessionModel(transcript: string): string | undefined {
  try {
    const settings: unknown = JSON.parse(readFileSync(transcript.replace(/\.jsonl$/, '') + '.settings.json', 'utf8'));
    const model = isObject(settings) ? optionalString(settings.model) : undefined;
    if (model !== undefined) return model;
  } catch {
    // no settings file, or not JSON: the transcript may still say
  }
  return findFromEnd(transcript, (line) => MODEL.exec(line)?.[1]);
}

function droidWrites(tool: string, input: unknown): FileWrite[] {
  switch (tool) {
    case 'Create':
      return [toolWrite('droid', tool, input, PATHS, ['content', 'file_text'])];
    case 'Edit':
      return [toolWrite('droid', tool, input, PATHS, ['new_str', 'new_string'])];
    case 'MultiEdit': {
      const fields = isObject(input) ? input : {};
      const path = PATHS.map((member) => fields[member]).find((value): value is string => typeof value === 'string' && value !== '');
      if (path === undefined)
        throw new PayloadError('missing_field', 'The droid MultiEdit payload has no "file_path"; the event was skipped.');
      const edits = Array.isArray(fields.edits)
        ? fields.edits.map((edit: unknown) =>
            isObject(edit) && typeof edit.new_str === 'string' ? { ...edit, new_string: edit.new_str } : edit,
          )
        : fields.edits;
      return [{ filePath: path, fragments: editFragments(edits, 'droid') }];
    }
    case 'ApplyPatch': {
      const fields = isObject(input) ? input : {};
      const patch = [fields.input, fields.patch, input].find((value): value is string => typeof value === 'string' && isApplyPatch(value));
      if (patch === undefined)
        throw new PayloadError('missing_field', 'The droid ApplyPatch payload holds no patch; the event was skipped.');
      return parseApplyPatch(patch);
    }
    default:
      return [];
  }
}

export const droid: AgentAdapter = {
  id: 'droid',
  title: 'Factory Droid',
  install: {
    kind: 'settings',
    layout: 'grouped',
    projectFile: '.factory/hooks.json',
    globalFile: (env) => join(userHome(env), '.factory', 'hooks.json'),
    events: [
      { event: 'SessionStart' },
      { event: 'UserPromptSubmit' },
      { event: 'PostToolUse', matcher: 'Create|Edit|MultiEdit|ApplyPatch' },
      { event: 'Stop' },
      { event: 'SessionEnd' },
    ],
  },
  normalize: normalizeDroid,
  async closingMessage(transcriptPath, reported) {
    if (reported !== undefined) return { text: reported, final: true };
    const text = await lastTextInJsonl(transcriptPath, (entry) => {
      const message = isObject(entry.message) ? entry.message : entry;
      if (message.role !== 'assistant') return undefined;
      const texts = textBlocks(message.content);
      return texts.length > 0 ? texts.join('\n\n') : undefined;
    });
    return { text, final: true };
  },
  // The reader is imported on first use: the hook, which loads this module on every tool use, never loads it.
  transcript: () => import('./transcripts/droid.js').then((module) => module.droidTranscript),
};

export default agentPlugin(droid);
