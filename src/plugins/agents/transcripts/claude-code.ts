// Claude Code's transcript: JSONL `{type: "user" | "assistant", message: {role,
// content}, timestamp, isSidechain, isMeta}`, plus `{type: "summary"}` and lines
// of its own bookkeeping (file-history-snapshot, system). One assistant message
// is written over several lines, one per content block, sharing `message.id`
// and each carrying the message's `usage` as it stood when written (the output
// count grows): the last line's usage is the message's, counted once.
// `message.usage`: input_tokens (uncached), output_tokens,
// cache_creation_input_tokens (of which cache_creation.ephemeral_1h_input_tokens
// are kept an hour, priced higher), cache_read_input_tokens. Messages Claude Code
// made up itself (model `<synthetic>`, `isApiErrorMessage`) are no request.
import {
  isObject,
  multiEdit,
  replaceEdit,
  str,
  textOf,
  writeEdit,
  type ItemDraft,
  type ToolEdit,
  type TranscriptFormat,
  type UsageDraft,
} from '../../../plugin/transcript.js';

const SYNTHETIC = '<synthetic>';
/** What Claude Code writes in the person's name that the person did not type (command output, reminders, its interruption mark). */
const NOT_TYPED = /^\s*(?:<(?:local-command-stdout|local-command-stderr|system-reminder)>|\[Request interrupted by user)/;

function items(record: unknown): ItemDraft[] {
  if (!isObject(record)) return [];
  if (record.type === 'summary' && typeof record.summary === 'string') return [{ kind: 'meta', text: `Summary: ${record.summary}` }];
  if ((record.type !== 'user' && record.type !== 'assistant') || !isObject(record.message)) return [];
  const message = record.message;
  const ts = str(record.timestamp);
  if (record.type === 'assistant') return assistantItems(message, ts);
  // A subagent's prompt, or a line Claude Code adds itself, opens no turn of the person's.
  const ownWords = record.isSidechain !== true && record.isMeta !== true;
  const content = message.content;
  if (typeof content === 'string')
    return [{ kind: 'message', role: ownWords && !NOT_TYPED.test(content) ? 'person' : 'system', text: content, ts }];
  if (!Array.isArray(content)) return [];
  const drafts: ItemDraft[] = [];
  for (const block of content.filter(isObject)) {
    if (block.type === 'text' && typeof block.text === 'string')
      drafts.push({ kind: 'message', role: ownWords && !NOT_TYPED.test(block.text) ? 'person' : 'system', text: block.text, ts });
    else if (block.type === 'image') drafts.push({ kind: 'message', role: ownWords ? 'person' : 'system', text: '[image]', ts });
    else if (block.type === 'tool_result')
      drafts.push({ kind: 'tool_result', id: str(block.tool_use_id), text: textOf(block.content), error: block.is_error === true, ts });
  }
  return drafts;
}

function assistantItems(message: Record<string, unknown>, ts: string | undefined): ItemDraft[] {
  const model = str(message.model) === SYNTHETIC ? undefined : str(message.model);
  const content = message.content;
  if (typeof content === 'string') return [{ kind: 'message', role: 'assistant', text: content, ts, model }];
  if (!Array.isArray(content)) return [];
  const drafts: ItemDraft[] = [];
  for (const block of content.filter(isObject)) {
    if (block.type === 'text' && typeof block.text === 'string')
      drafts.push({ kind: 'message', role: 'assistant', text: block.text, ts, model });
    else if (block.type === 'thinking' && typeof block.thinking === 'string')
      drafts.push({ kind: 'thinking', text: block.thinking, ts, model });
    else if (block.type === 'tool_use') {
      const name = str(block.name) ?? 'tool';
      drafts.push({ kind: 'tool_call', id: str(block.id), name, input: block.input, ...toolEdit(name, block.input), ts, model });
    }
  }
  return drafts;
}

/** Write, Edit, MultiEdit and NotebookEdit: what they write. */
export function toolEdit(name: string, input: unknown): Partial<ToolEdit> {
  if (!isObject(input)) return {};
  if (name === 'NotebookEdit') {
    const notebook = str(input.notebook_path);
    return notebook ? { files: [notebook] } : {};
  }
  const file = str(input.file_path);
  if (file === undefined) return {};
  if (name === 'Write' && typeof input.content === 'string') return writeEdit(file, input.content);
  if (name === 'Edit' && typeof input.old_string === 'string' && typeof input.new_string === 'string')
    return replaceEdit(file, input.old_string, input.new_string);
  if (name === 'MultiEdit' && Array.isArray(input.edits))
    return multiEdit(
      file,
      input.edits.filter(isObject).map((edit) => ({ before: str(edit.old_string) ?? '', after: str(edit.new_string) ?? '' })),
    );
  return {};
}

function usage(record: unknown): UsageDraft[] {
  if (!isObject(record) || record.type !== 'assistant' || !isObject(record.message) || record.isApiErrorMessage === true) return [];
  const message = record.message;
  const model = str(message.model);
  if (model === SYNTHETIC) return [];
  const key = str(message.id) ?? str(record.requestId) ?? str(record.uuid);
  const raw = isObject(message.usage) ? message.usage : undefined;
  return [
    {
      ...(key ? { key } : {}),
      ts: str(record.timestamp),
      model,
      tokens: raw
        ? {
            input: raw.input_tokens,
            output: raw.output_tokens,
            cacheWrite: raw.cache_creation_input_tokens,
            cacheRead: raw.cache_read_input_tokens,
            ...(isObject(raw.cache_creation) ? { cacheWrite1h: raw.cache_creation.ephemeral_1h_input_tokens } : {}),
          }
        : { input: undefined, output: undefined, cacheWrite: undefined, cacheRead: undefined },
    },
  ];
}

/**
 * Whether a raw line may hold a prompt: a user line, unless it holds a tool
 * result and no text or image block (the tool results, most of a transcript's
 * bytes, then need no parsing). The patterns match only JSON's own quotes: in
 * a string's text a quote is escaped, so `"type":"tool_result"` there reads
 * `\"type\":\"tool_result\"` and matches nothing.
 */
function mayStartTurn(text: string): boolean {
  if (!USER_LINE.test(text)) return false;
  return !TOOL_RESULT_BLOCK.test(text) || PROMPT_BLOCK.test(text);
}

const USER_LINE = /"type":\s*"user"/;
const TOOL_RESULT_BLOCK = /"type":\s*"tool_result"/;
const PROMPT_BLOCK = /"type":\s*"(?:text|image)"/;

export const claudeCodeTranscript: TranscriptFormat = {
  agent: 'claude-code',
  items,
  mayStartTurn,
  usage: { mayHold: (text) => /"type":\s*"assistant"/.test(text), read: usage },
  recognizes: (record) =>
    isObject(record) &&
    (((record.type === 'user' || record.type === 'assistant') && isObject(record.message) && 'content' in record.message) ||
      (record.type === 'summary' && 'leafUuid' in record) ||
      (record.type === 'file-history-snapshot' && 'snapshot' in record)),
};
