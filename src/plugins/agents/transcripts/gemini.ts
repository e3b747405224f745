// Gemini CLI's chat recording (`~/.gemini/tmp/<project>/chats/session-*.jsonl`):
// a `{sessionId, projectHash, startTime}` line, then one line per message
// `{id, timestamp, type: "user" | "gemini" | "info" | "error" | "warning",
// content, model, thoughts, toolCalls, tokens}`, and `{$set: {...}}` metadata
// lines. A message is written again, whole, each time it changes (its tool
// calls, then its tokens): what a later copy adds is read, what it repeats is
// not: only the latest message is ever written again, so what was read of it is
// all a read keeps (and a page cursor carries). Releases before the JSONL wrote one indented JSON document,
// `{sessionId, ..., messages: [...]}`, read element by element.
// `tokens` is the request's usageMetadata: input = promptTokenCount (cached
// tokens included), output = candidatesTokenCount, cached, thoughts (billed as
// output), tool (tool-use prompt tokens, billed as input).
import {
  firstString,
  isObject,
  replaceEdit,
  str,
  textOf,
  writeEdit,
  type ItemDraft,
  type ReadState,
  type ToolEdit,
  type TranscriptFormat,
  type UsageDraft,
} from '../../../plugin/transcript.js';

const PATHS = ['file_path', 'absolute_path', 'path'];

/** What has been read of the latest message: its id, whether its text was, the ids of its calls and of their results. */
interface Seen {
  id: string;
  text: boolean;
  calls: string[];
  results: string[];
}

function seenOf(state: ReadState, id: string): Seen {
  const last = state.carry as Seen | undefined;
  if (last && last.id === id && Array.isArray(last.calls) && Array.isArray(last.results)) return last;
  const seen: Seen = { id, text: false, calls: [], results: [] };
  state.carry = seen;
  return seen;
}

function items(record: unknown, state: ReadState): ItemDraft[] {
  if (!isObject(record)) return [];
  // A whole document on one line (an older file written without indenting).
  if (Array.isArray(record.messages) && typeof record.sessionId === 'string')
    return record.messages.flatMap((message) => items(message, state));
  if (typeof record.type !== 'string' || !('content' in record || 'toolCalls' in record)) return [];
  const ts = str(record.timestamp);
  const seen = seenOf(state, str(record.id) ?? `#${ts ?? ''}${record.type}`);
  const text = textOf(record.displayContent ?? record.content);
  const drafts: ItemDraft[] = [];
  if (!seen.text && text.trim() !== '') {
    seen.text = true;
    if (record.type === 'user') drafts.push({ kind: 'message', role: 'person', text, ts });
    else if (record.type === 'gemini') drafts.push({ kind: 'message', role: 'assistant', text, ts, model: str(record.model) });
    else drafts.push({ kind: 'meta', text: record.type === 'info' ? text : `${record.type}: ${text}`, ts });
  }
  if (record.type !== 'gemini') return drafts;
  if (Array.isArray(record.thoughts) && !seen.calls.includes('#thoughts') && record.thoughts.length > 0) {
    seen.calls.push('#thoughts');
    const thought = record.thoughts
      .filter(isObject)
      .map((part) => [str(part.subject), str(part.description)].filter(Boolean).join(': '))
      .join('\n\n');
    drafts.unshift({ kind: 'thinking', text: thought, ts, model: str(record.model) });
  }
  for (const call of Array.isArray(record.toolCalls) ? record.toolCalls.filter(isObject) : []) {
    const id = str(call.id) ?? str(call.name) ?? '';
    const name = str(call.name) ?? 'tool';
    if (!seen.calls.includes(id)) {
      seen.calls.push(id);
      drafts.push({
        kind: 'tool_call',
        id: str(call.id),
        name,
        input: call.args,
        ...toolEdit(name, call.args),
        ts: str(call.timestamp) ?? ts,
        model: str(record.model),
      });
    }
    const result = textOf(call.resultDisplay ?? call.result);
    if (result !== '' && !seen.results.includes(id)) {
      seen.results.push(id);
      drafts.push({ kind: 'tool_result', id: str(call.id), text: result, error: call.status === 'error', ts: str(call.timestamp) ?? ts });
    }
  }
  return drafts;
}

/** write_file writes a file whole, replace swaps a string in one. */
function toolEdit(name: string, args: unknown): Partial<ToolEdit> {
  if (!isObject(args)) return {};
  const file = firstString(args, PATHS);
  if (file === undefined) return {};
  if (name === 'write_file' && typeof args.content === 'string') return writeEdit(file, args.content);
  if (name === 'replace' && typeof args.old_string === 'string' && typeof args.new_string === 'string')
    return replaceEdit(file, args.old_string, args.new_string);
  return {};
}

function usage(record: unknown): UsageDraft[] {
  if (!isObject(record)) return [];
  if (Array.isArray(record.messages) && typeof record.sessionId === 'string') return record.messages.flatMap(usage);
  if (record.type !== 'gemini' || !('tokens' in record) || record.tokens === null) return [];
  const tokens = isObject(record.tokens) ? record.tokens : {};
  const { input, cached = 0, tool = 0, thoughts = 0, output } = tokens as Record<string, unknown>;
  const numbers = [input, cached, tool, thoughts, output].every((value) => typeof value === 'number');
  return [
    {
      ...(str(record.id) ? { key: str(record.id) } : {}),
      ts: str(record.timestamp),
      model: str(record.model),
      tokens: numbers
        ? {
            input: (input as number) - (cached as number) + (tool as number),
            output: (output as number) + (thoughts as number),
            cacheWrite: 0,
            cacheRead: cached,
            reasoning: thoughts,
          }
        : { input, output, cacheWrite: 0, cacheRead: cached, reasoning: thoughts },
    },
  ];
}

export const geminiTranscript: TranscriptFormat = {
  agent: 'gemini',
  documentMember: 'messages',
  items,
  mayStartTurn: (text) => /"type":\s*"user"|"messages"/.test(text),
  usage: { mayHold: (text) => /"tokens"/.test(text), read: usage },
  recognizes: (record) =>
    isObject(record) &&
    ((typeof record.sessionId === 'string' && typeof record.projectHash === 'string') ||
      ((record.type === 'gemini' || record.type === 'user') && 'content' in record && !('message' in record))),
};
