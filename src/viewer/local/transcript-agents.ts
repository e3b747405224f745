// Transcript lines of the agents added with issue 21, to the entries the
// session page reads (transcript-normalize.ts handles Claude Code, Codex and
// Cursor). Each is recognised by its shape:
// - Gemini CLI's chat recording: `{type: "user" | "gemini", content, model, toolCalls}`;
// - Copilot CLI's session events: `{type: "user.message" | "assistant.message" | "tool.execution_complete" | "session.model_change", data}`;
// - Factory Droid: `{type: "message", message: {role, content: [blocks]}}` (Claude's blocks);
// - Qwen Code: `{type: "user" | "assistant", message: {role, parts: [{text} | {functionCall} | {functionResponse}]}}`.
import type { TranscriptEntry } from '../data-source.js';
import { isObject, str } from './refreshing-file.js';

type Entry = TranscriptEntry;
type Row = Record<string, unknown>;
type Tool = (line: number, id: string | undefined, name: string, input: unknown) => Entry;

export function isGeminiLine(value: Row): boolean {
  return (value.type === 'gemini' || value.type === 'user' || value.type === 'info') && !isObject(value.message) && 'content' in value;
}

export function geminiLine(value: Row, line: number, tool: Tool): Entry[] {
  const ts = str(value.timestamp);
  const text = textOf(value.content);
  if (value.type === 'info') return text === '' ? [] : [stamp({ kind: 'meta', line, text }, ts)];
  const role = value.type === 'gemini' ? 'assistant' : 'user';
  const model = str(value.model);
  const entries: Entry[] = text === '' ? [] : [stamp({ kind: 'message', line, role, text, ...(model ? { model } : {}) }, ts)];
  for (const call of Array.isArray(value.toolCalls) ? value.toolCalls.filter(isObject) : []) {
    entries.push(stamp(tool(line, str(call.id), str(call.name) ?? 'tool', call.args), ts));
    const result = textOf(call.resultDisplay ?? call.result);
    if (result !== '')
      entries.push(stamp({ kind: 'tool_result', line, id: str(call.id), text: result, error: call.status === 'error' }, ts));
  }
  return entries;
}

export function isCopilotLine(value: Row): boolean {
  return typeof value.type === 'string' && /^(session|user|assistant|tool)\./.test(value.type) && isObject(value.data);
}

export function copilotLine(value: Row, line: number, tool: Tool): Entry[] {
  const ts = str(value.timestamp);
  const data = value.data as Row;
  switch (value.type) {
    case 'session.start': {
      const model = str(data.selectedModel);
      return [stamp({ kind: 'meta', line, text: `Copilot CLI session${model ? ` (${model})` : ''}` }, ts)];
    }
    case 'session.model_change': {
      const model = str(data.newModel);
      return model ? [stamp({ kind: 'meta', line, text: `Model: ${model}` }, ts)] : [];
    }
    case 'user.message':
    case 'assistant.message': {
      const role = value.type === 'user.message' ? 'user' : 'assistant';
      const text = textOf(data.content);
      const entries: Entry[] = text === '' ? [] : [stamp({ kind: 'message', line, role, text }, ts)];
      // Copilot CLI 1.x writes a request's arguments as a JSON string.
      for (const request of Array.isArray(data.toolRequests) ? data.toolRequests.filter(isObject) : [])
        entries.push(stamp(tool(line, str(request.toolCallId), str(request.name) ?? 'tool', objectOrText(request.arguments)), ts));
      return entries;
    }
    case 'tool.execution_complete': {
      // `{content}` in some releases, `{result_type, text_result_for_llm}` in others.
      const result = isObject(data.result)
        ? (data.result.content ?? data.result.text_result_for_llm ?? data.result.textResultForLlm)
        : data.result;
      const failed = data.success === false || (isObject(data.result) && data.result.result_type === 'failure');
      return [stamp({ kind: 'tool_result', line, id: str(data.toolCallId), text: textOf(result), error: failed }, ts)];
    }
    default:
      return [];
  }
}

export function isDroidLine(value: Row): boolean {
  return value.type === 'message' && isObject(value.message) && typeof value.message.role === 'string';
}

/** Qwen Code keeps Gemini's `parts`; the rest of the line is Claude Code's shape. */
export function hasParts(value: Row): boolean {
  return isObject(value.message) && Array.isArray(value.message.parts);
}

export function partsLine(value: Row, line: number, tool: Tool): Entry[] {
  const ts = str(value.timestamp);
  const message = value.message as Row;
  const role = value.type === 'assistant' || message.role === 'model' ? 'assistant' : 'user';
  const model = str(value.model);
  const entries: Entry[] = [];
  for (const part of (message.parts as unknown[]).filter(isObject)) {
    if (typeof part.text === 'string' && part.text.trim() !== '')
      entries.push(
        stamp({ kind: part.thought === true ? 'thinking' : 'message', line, role, text: part.text, ...(model ? { model } : {}) }, ts),
      );
    else if (isObject(part.functionCall))
      entries.push(stamp(tool(line, str(part.functionCall.id), str(part.functionCall.name) ?? 'tool', part.functionCall.args), ts));
    else if (isObject(part.functionResponse))
      entries.push(
        stamp({ kind: 'tool_result', line, id: str(part.functionResponse.id), text: textOf(part.functionResponse.response) }, ts),
      );
  }
  return entries;
}

function objectOrText(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    const parsed: unknown = JSON.parse(value);
    return isObject(parsed) ? parsed : value;
  } catch {
    return value;
  }
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((part) => (typeof part === 'string' ? part : isObject(part) ? (str(part.text) ?? '') : ''))
      .filter((text) => text !== '')
      .join('\n\n');
  if (content === undefined || content === null) return '';
  return JSON.stringify(content, null, 2);
}

function stamp<T extends Entry>(entry: T, ts: string | undefined): T {
  return ts === undefined ? entry : { ...entry, ts };
}
