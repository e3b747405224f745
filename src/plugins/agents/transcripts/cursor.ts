// Cursor's agent transcripts (`~/.cursor/projects/<slug>/agent-transcripts/`,
// the path stop and sessionEnd name): JSONL of Anthropic-style messages
// `{role, message: {content: [{type: "text" | "tool_use", ...}]}}` (older:
// `{role, text}`), and `{type: "turn_ended"}` lines. The person's words are
// wrapped in `<user_query>`. The lines hold no model and no token usage.
import {
  firstString,
  isObject,
  isPatch,
  patchEdit,
  replaceEdit,
  str,
  textOf,
  writeEdit,
  type ItemDraft,
  type ToolEdit,
  type TranscriptFormat,
} from '../../../plugin/transcript.js';

const QUERY = /<user_query>\s*([\s\S]*?)\s*<\/user_query>/;

function items(record: unknown): ItemDraft[] {
  if (!isObject(record)) return [];
  const role = record.role ?? record.type;
  if (role !== 'user' && role !== 'assistant') return [];
  const ts = str(record.timestamp);
  const content = isObject(record.message) ? record.message.content : (record.text ?? record.content);
  if (role === 'user') {
    const text = textOf(content);
    return [{ kind: 'message', role: 'person', text: QUERY.exec(text)?.[1] ?? text, ts }];
  }
  if (!Array.isArray(content)) return [{ kind: 'message', role: 'assistant', text: textOf(content), ts }];
  const drafts: ItemDraft[] = [];
  for (const block of content) {
    if (isObject(block) && block.type === 'tool_use') {
      const name = str(block.name) ?? 'tool';
      drafts.push({ kind: 'tool_call', id: str(block.id), name, input: block.input, ...toolEdit(name, block.input), ts });
    } else if (isObject(block) && block.type === 'tool_result')
      drafts.push({ kind: 'tool_result', id: str(block.tool_use_id), text: textOf(block.content), error: block.is_error === true, ts });
    else if (isObject(block) && block.type === 'thinking')
      drafts.push({ kind: 'thinking', text: textOf(block.thinking ?? block.text), ts });
    else drafts.push({ kind: 'message', role: 'assistant', text: textOf([block]), ts });
  }
  return drafts;
}

/** StrReplace / Edit swap a string, Write writes a file whole, ApplyPatch takes Codex's patch. */
function toolEdit(name: string, input: unknown): Partial<ToolEdit> {
  if (isPatch(input)) return patchEdit(input);
  if (!isObject(input)) return {};
  if (isPatch(input.patch) || isPatch(input.input)) return patchEdit((isPatch(input.patch) ? input.patch : input.input) as string);
  const file = firstString(input, ['path', 'file_path', 'target_file']);
  if (file === undefined) return {};
  if (typeof input.old_string === 'string' && typeof input.new_string === 'string')
    return replaceEdit(file, input.old_string, input.new_string);
  const content = [input.contents, input.content, input.code_edit].find((value): value is string => typeof value === 'string');
  if (/write|create|edit_file/i.test(name) && content !== undefined) return writeEdit(file, content);
  return {};
}

export const cursorTranscript: TranscriptFormat = {
  agent: 'cursor',
  items,
  mayStartTurn: (text) => /"user"/.test(text),
  // Cursor 3 reports a turn's tokens in its hook payloads instead: the trace rows keep them (usageFromTraces).
  usage: {
    unknown: "Cursor's transcripts hold no token counts; its stop and afterAgentResponse payloads report a turn's, kept on the trace rows.",
  },
  recognizes: (record) =>
    isObject(record) && (record.role === 'user' || record.role === 'assistant') && !('type' in record) && !('parts' in record),
};
