// Qwen Code's chat recording (JSONL, the path its hooks name): Claude Code's
// line shape `{uuid, parentUuid, sessionId, timestamp, type: "user" |
// "assistant" | "system" | "tool_result", model, message}` holding Gemini's
// `message: {role, parts: [{text} | {functionCall} | {functionResponse}]}`.
// An assistant line's `usageMetadata` is Gemini's for its request:
// promptTokenCount (cached tokens included), candidatesTokenCount,
// cachedContentTokenCount, thoughtsTokenCount (billed as output).
import {
  firstString,
  isObject,
  replaceEdit,
  str,
  textOf,
  writeEdit,
  type ItemDraft,
  type ToolEdit,
  type TranscriptFormat,
  type UsageDraft,
} from '../../../plugin/transcript.js';

function items(record: unknown): ItemDraft[] {
  if (!isObject(record) || !isObject(record.message) || !Array.isArray(record.message.parts)) return [];
  const ts = str(record.timestamp);
  const assistant = record.type === 'assistant' || record.message.role === 'model';
  const model = str(record.model);
  const drafts: ItemDraft[] = [];
  for (const part of record.message.parts.filter(isObject)) {
    if (typeof part.text === 'string') {
      if (part.thought === true) drafts.push({ kind: 'thinking', text: part.text, ts, model });
      else if (assistant) drafts.push({ kind: 'message', role: 'assistant', text: part.text, ts, model });
      else drafts.push({ kind: 'message', role: record.type === 'user' ? 'person' : 'system', text: part.text, ts });
    } else if (isObject(part.functionCall)) {
      const name = str(part.functionCall.name) ?? 'tool';
      const args = part.functionCall.args;
      drafts.push({ kind: 'tool_call', id: str(part.functionCall.id), name, input: args, ...toolEdit(name, args), ts, model });
    } else if (isObject(part.functionResponse))
      drafts.push({ kind: 'tool_result', id: str(part.functionResponse.id), text: textOf(part.functionResponse.response), ts });
  }
  return drafts;
}

/** write_file writes a file whole, edit swaps a string in one. */
function toolEdit(name: string, args: unknown): Partial<ToolEdit> {
  if (!isObject(args)) return {};
  const file = firstString(args, ['file_path', 'absolute_path', 'path']);
  if (file === undefined) return { files: [] };
  if (name === 'write_file' && typeof args.content === 'string') return writeEdit(file, args.content);
  if (name === 'edit' && typeof args.old_string === 'string' && typeof args.new_string === 'string')
    return replaceEdit(file, args.old_string, args.new_string);
  return name === 'edit' || name === 'write_file' ? { files: [file] } : {};
}

function usage(record: unknown): UsageDraft[] {
  if (!isObject(record) || record.type !== 'assistant' || !isObject(record.usageMetadata)) return [];
  const {
    promptTokenCount: prompt,
    candidatesTokenCount: output,
    cachedContentTokenCount: cached = 0,
    thoughtsTokenCount: thoughts = 0,
  } = record.usageMetadata;
  const numbers = [prompt, output, cached, thoughts].every((value) => typeof value === 'number');
  return [
    {
      ...(str(record.uuid) ? { key: str(record.uuid) } : {}),
      ts: str(record.timestamp),
      model: str(record.model),
      tokens: numbers
        ? {
            input: (prompt as number) - (cached as number),
            output: (output as number) + (thoughts as number),
            cacheWrite: 0,
            cacheRead: cached,
            reasoning: thoughts,
          }
        : { input: prompt, output, cacheWrite: 0, cacheRead: cached, reasoning: thoughts },
    },
  ];
}

export const qwenTranscript: TranscriptFormat = {
  agent: 'qwen',
  items,
  mayStartTurn: (text) => /"type":\s*"user"/.test(text),
  usage: { mayHold: (text) => /"usageMetadata"/.test(text), read: usage },
  recognizes: (record) => isObject(record) && isObject(record.message) && Array.isArray(record.message.parts),
};
