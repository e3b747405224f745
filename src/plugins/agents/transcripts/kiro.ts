// Kiro CLI keeps a session as JSON lines (`~/.kiro/sessions/cli/<session_id>.jsonl`,
// a `<session_id>.json` of metadata beside it): `{kind: "Prompt" |
// "AssistantMessage" | "ToolResults", data: {content: [{kind: "text", data} |
// {kind: "toolUse", data: {toolUseId, name, input}} | {kind: "toolResult",
// data: {toolUseId, content, status}}]}}`. Releases that keep conversations in
// SQLite (`data.sqlite3`, table `conversations_v2`, one JSON value per
// conversation: `{conversation_id, history: [{user, assistant,
// request_metadata}]}`) are snapshotted as one line per history entry, read
// here too. File tools: `fs_write` (`command` create | str_replace | insert |
// append, `path`, `file_text`, `old_str`, `new_str`) and `write`. Kiro bills
// in credits and writes no token counts.
import {
  firstString,
  isObject,
  jsonLines,
  millisToIso,
  replaceEdit,
  sqliteRows,
  str,
  textOf,
  writeEdit,
  type ItemDraft,
  type ReadState,
  type ToolEdit,
  type TranscriptFormat,
} from '../../../plugin/transcript.js';

function items(record: unknown, state: ReadState): ItemDraft[] {
  if (!isObject(record)) return [];
  if (typeof record.kind === 'string' && isObject(record.data))
    return lineItems(record.kind, record.data, str(record.timestamp) ?? millisToIso(record.data.timestamp));
  if (isObject(record.user) || isObject(record.assistant)) return entryItems(record, state);
  return [];
}

function lineItems(kind: string, data: Record<string, unknown>, ts: string | undefined): ItemDraft[] {
  const blocks = Array.isArray(data.content) ? data.content.filter(isObject) : [];
  const drafts: ItemDraft[] = [];
  for (const block of blocks) {
    const value = block.data;
    if (block.kind === 'text' && typeof value === 'string')
      drafts.push(
        kind === 'Prompt' ? { kind: 'message', role: 'person', text: value, ts } : { kind: 'message', role: 'assistant', text: value, ts },
      );
    else if (block.kind === 'toolUse' && isObject(value)) {
      const name = str(value.name) ?? 'tool';
      drafts.push({ kind: 'tool_call', id: str(value.toolUseId), name, input: value.input, ...toolEdit(name, value.input), ts });
    } else if (block.kind === 'toolResult' && isObject(value))
      drafts.push({
        kind: 'tool_result',
        id: str(value.toolUseId),
        text: resultText(value.content),
        error: /error/i.test(String(value.status ?? '')),
        ts,
      });
  }
  return drafts;
}

/** One history entry of the SQLite store: the person's prompt or tool results, then the assistant's answer or tool uses. */
function entryItems(entry: Record<string, unknown>, state: ReadState): ItemDraft[] {
  const user = isObject(entry.user) ? entry.user : {};
  const metadata = isObject(entry.request_metadata) ? entry.request_metadata : {};
  const model = str(metadata.model_id);
  if (model) state.model = model;
  const ts = str(user.timestamp);
  const content = isObject(user.content) ? user.content : {};
  const drafts: ItemDraft[] = [];
  const prompt = isObject(content.Prompt) ? content.Prompt.prompt : content.Prompt;
  if (typeof prompt === 'string') drafts.push({ kind: 'message', role: 'person', text: prompt, ts });
  for (const result of Array.isArray(content.ToolUseResults) ? content.ToolUseResults.filter(isObject) : [])
    drafts.push({
      kind: 'tool_result',
      id: str(result.tool_use_id),
      text: resultText(result.content),
      error: result.status === 'Error',
      ts,
    });
  const assistant = isObject(entry.assistant) ? entry.assistant : {};
  const answered = millisToIso(metadata.stream_end_timestamp_ms) ?? ts;
  const answer = isObject(assistant.Response) ? assistant.Response : isObject(assistant.ToolUse) ? assistant.ToolUse : undefined;
  if (answer) drafts.push({ kind: 'message', role: 'assistant', text: textOf(answer.content), ts: answered, model });
  for (const use of isObject(assistant.ToolUse) && Array.isArray(assistant.ToolUse.tool_uses)
    ? assistant.ToolUse.tool_uses.filter(isObject)
    : []) {
    const name = str(use.name) ?? 'tool';
    drafts.push({ kind: 'tool_call', id: str(use.id), name, input: use.args, ...toolEdit(name, use.args), ts: answered, model });
  }
  return drafts;
}

/** Tool results are `[{Text}]`, `[{Json}]` or `[{kind, data}]` blocks. */
function resultText(content: unknown): string {
  if (!Array.isArray(content)) return textOf(content);
  return content
    .map((block) =>
      isObject(block)
        ? (str(block.Text) ??
          str(block.text) ??
          (typeof block.data === 'string' ? block.data : JSON.stringify(block.Json ?? block.data ?? block)))
        : textOf(block),
    )
    .join('\n\n');
}

function toolEdit(name: string, input: unknown): Partial<ToolEdit> {
  if ((name !== 'fs_write' && name !== 'write') || !isObject(input)) return {};
  const file = firstString(input, ['path', 'file_path']);
  if (file === undefined) return {};
  const before = [input.old_str, input.oldStr].find((value): value is string => typeof value === 'string');
  const after = [input.new_str, input.newStr].find((value): value is string => typeof value === 'string');
  if (before !== undefined && after !== undefined) return replaceEdit(file, before, after);
  const content = [input.file_text, input.content, after].find((value): value is string => typeof value === 'string');
  return content === undefined ? { files: [file] } : writeEdit(file, content);
}

/** A conversation of the SQLite store, as one JSON line per history entry. */
async function* snapshot(path: string, conversationId: string): AsyncGenerator<Buffer> {
  if (!path.endsWith('.sqlite3')) throw new Error(`${path} is not Kiro's data.sqlite3`);
  async function* entries(): AsyncGenerator<unknown> {
    for await (const row of sqliteRows(
      path,
      'SELECT value FROM conversations_v2 WHERE conversation_id = ? ORDER BY updated_at DESC LIMIT 1',
      [conversationId],
    )) {
      const value = typeof row.value === 'string' ? (JSON.parse(row.value) as unknown) : undefined;
      if (isObject(value) && Array.isArray(value.history)) yield* value.history;
    }
  }
  yield* jsonLines(entries());
}

export const kiroTranscript: TranscriptFormat = {
  agent: 'kiro',
  items,
  mayStartTurn: (text) => /"Prompt"|"model_id"/.test(text),
  usage: { unknown: 'Kiro bills in credits: its transcripts hold no token counts.' },
  recognizes: (record) => isObject(record) && ((typeof record.kind === 'string' && isObject(record.data)) || isObject(record.user)),
  snapshot,
};
