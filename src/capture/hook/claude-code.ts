// Claude Code hooks: every payload has `session_id`, `transcript_path`, `cwd` and
// `hook_event_name`. PostToolUse runs after the tool, so the file on disk already
// holds what Write, Edit, MultiEdit or NotebookEdit wrote; PreToolUse runs before
// it and records no files. No payload names the model: a trace that wrote files
// takes it from the end of the transcript. Stop may carry `last_assistant_message`.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import {
  claudeFileWrites,
  eventKey,
  FILE_TOOLS,
  optionalString,
  promptLength,
  requiredString,
  type HookEvent,
  type Payload,
} from './hook-event.js';
const TURN_ENDS = new Set(['stop', 'sessionend']);

export function normalizeClaudeCode(event: string, payload: Payload): HookEvent {
  const key = eventKey(event);
  const tool = optionalString(payload.tool_name);
  const endsTurn = TURN_ENDS.has(key);
  const writes = key === 'posttooluse' && tool !== undefined && FILE_TOOLS.has(tool) ? claudeFileWrites(tool, payload.tool_input) : [];
  const model = optionalString(payload.model);
  const transcript = optionalString(payload.transcript_path);
  return {
    agent: 'claude-code',
    event,
    conversationId: requiredString(payload, 'session_id', 'claude-code'),
    // Only a trace that wrote lines needs the model (its ledger ranges name it); the others skip the read.
    model: model ?? (writes.length > 0 && transcript !== undefined ? modelFromTranscript(transcript) : undefined),
    tool,
    cwd: optionalString(payload.cwd),
    writes,
    promptChars: key === 'userpromptsubmit' ? promptLength(payload.prompt) : undefined,
    transcriptPath: endsTurn ? transcript : undefined,
    endsTurn,
    reportedSummary: endsTurn ? optionalString(payload.last_assistant_message) : undefined,
  };
}

/**
 * The model of the latest assistant message of the main conversation, read
 * backwards from the end of the transcript in chunks and never more than
 * MODEL_TAIL_BYTES: a 65 MB transcript costs what its last lines cost. Every
 * assistant line names its model (`message.model`, before the content), so it is
 * found within the last few lines; subagent lines (`isSidechain`) and messages
 * Claude Code made up itself (`<synthetic>`) are passed over. Synchronous, and in
 * this module, because it runs on the tool-use path where every loaded module costs.
 */
const MODEL_TAIL_BYTES = 4 * 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;
const MODEL = /"model":"([^"\\]{1,250})"/;

export function modelFromTranscript(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    let position = size;
    let carry = Buffer.alloc(0);
    while (position > 0 && size - position < MODEL_TAIL_BYTES) {
      const length = Math.min(CHUNK_BYTES, position);
      position -= length;
      const chunk = Buffer.allocUnsafe(length);
      readSync(fd, chunk, 0, length, position);
      const buffer = carry.length > 0 ? Buffer.concat([chunk, carry]) : chunk;
      let end = buffer.length;
      for (;;) {
        const newline = end > 0 ? buffer.lastIndexOf(0x0a, end - 1) : -1;
        // Before the first newline of a chunk the line may start in the chunk before: it waits, unless the file starts here.
        if (newline === -1 && position > 0) break;
        const model = modelOfLine(buffer.toString('utf8', newline + 1, end));
        if (model !== undefined) return model;
        if (newline === -1) break;
        end = newline;
      }
      carry = buffer.subarray(0, end);
    }
    return undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function modelOfLine(line: string): string | undefined {
  if (!line.includes('"type":"assistant"') || line.includes('"isSidechain":true')) return undefined;
  const model = MODEL.exec(line)?.[1];
  return model === undefined || model === '<synthetic>' ? undefined : model;
}
