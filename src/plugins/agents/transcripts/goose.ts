// goose keeps its sessions in SQLite (`sessions.db` under its data folder,
// `~/.local/share/goose/sessions/`): a `sessions` row, `messages` rows (`role`,
// `content_json`, a JSON array of content blocks, `created_timestamp` in
// seconds, `metadata_json`), and, in newer releases, a `usage_ledger` row per
// model request (`model`, `input_tokens`, `output_tokens`, `cache_read_tokens`,
// `cache_write_tokens`, `created_timestamp`). The snapshot is those rows as JSON
// lines, in the shape of goose's older session files (`<id>.jsonl`: a first
// line about the session, then one message per line), which are read alike;
// usage rows come as `{usage: {...}}` lines placed by their time.
// Content blocks: `text`, `thinking`, `toolRequest` (`toolCall.value: {name,
// arguments}`), `toolResponse` (`toolResult.value` content, or `error`), `image`.
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
  type UsageDraft,
} from '../../../plugin/transcript.js';

function items(record: unknown, state: ReadState): ItemDraft[] {
  if (!isObject(record)) return [];
  if (typeof record.working_dir === 'string' && !('role' in record)) {
    const model = modelOf(record);
    if (model) state.model = model;
    return [{ kind: 'meta', text: `goose session in ${record.working_dir}`, ts: millisToIso(record.created_at ?? record.created) }];
  }
  if ((record.role !== 'user' && record.role !== 'assistant') || !Array.isArray(record.content)) return [];
  if (isObject(record.metadata) && record.metadata.userVisible === false) return [];
  const ts = millisToIso(record.created);
  const drafts: ItemDraft[] = [];
  for (const block of record.content.filter(isObject)) {
    switch (block.type) {
      case 'text':
        drafts.push(
          record.role === 'user'
            ? { kind: 'message', role: 'person', text: textOf(block.text), ts }
            : { kind: 'message', role: 'assistant', text: textOf(block.text), ts },
        );
        break;
      case 'thinking':
        drafts.push({ kind: 'thinking', text: textOf(block.thinking), ts });
        break;
      case 'image':
        drafts.push({ kind: 'message', role: record.role === 'user' ? 'person' : 'assistant', text: '[image]', ts });
        break;
      case 'toolRequest':
      case 'frontendToolRequest': {
        const value = isObject(block.toolCall) && isObject(block.toolCall.value) ? block.toolCall.value : {};
        const name = str(value.name) ?? 'tool';
        drafts.push({ kind: 'tool_call', id: str(block.id), name, input: value.arguments, ...toolEdit(name, value.arguments), ts });
        break;
      }
      case 'toolResponse': {
        const result = isObject(block.toolResult) ? block.toolResult : {};
        const value = isObject(result.value) && 'content' in result.value ? result.value.content : result.value;
        const failed = result.status === 'error';
        drafts.push({ kind: 'tool_result', id: str(block.id), text: failed ? textOf(result.error) : textOf(value), error: failed, ts });
        break;
      }
      default:
        break;
    }
  }
  return drafts;
}

/** The developer extension's editors, by suffix: `text_editor` (`command`, `path`, `file_text`, `old_str`, `new_str`), `edit` (`before`, `after`), `write` (`content`). */
function toolEdit(name: string, input: unknown): Partial<ToolEdit> {
  if (!isObject(input) || !/(?:edit|write|text_editor)$/.test(name)) return {};
  const file = firstString(input, ['path', 'file_path']);
  if (file === undefined) return {};
  const command = str(input.command);
  if (command !== undefined && !['write', 'create', 'str_replace', 'insert', 'edit'].includes(command)) return {};
  const before = [input.old_str, input.before].find((value): value is string => typeof value === 'string');
  const after = [input.new_str, input.after].find((value): value is string => typeof value === 'string');
  if (before !== undefined && after !== undefined) return replaceEdit(file, before, after);
  const content = [input.file_text, input.content, after].find((value): value is string => typeof value === 'string');
  return content === undefined ? { files: [file] } : writeEdit(file, content);
}

function modelOf(session: Record<string, unknown>): string | undefined {
  const config = isObject(session.model_config) ? session.model_config : undefined;
  return (config && firstString(config, ['model_name', 'modelName', 'model'])) ?? str(session.model);
}

function usage(record: unknown, state: ReadState): UsageDraft[] {
  if (!isObject(record)) return [];
  // A session without per-request rows: goose's running totals for it, no request's.
  if (typeof record.working_dir === 'string' && 'accumulated_input_tokens' in record) {
    if (record.accumulated_input_tokens === null && record.accumulated_output_tokens === null) return [];
    return [
      {
        ts: millisToIso(record.updated_at),
        model: modelOf(record),
        scope: 'session',
        tokens: {
          input: record.accumulated_input_tokens ?? undefined,
          output: record.accumulated_output_tokens ?? undefined,
          cacheWrite: record.accumulated_cache_write_tokens ?? 0,
          cacheRead: record.accumulated_cache_read_tokens ?? 0,
        },
      },
    ];
  }
  if (!isObject(record.usage)) return [];
  const row = record.usage;
  return [
    {
      ts: millisToIso(row.created_timestamp),
      model: str(row.model) ?? state.model,
      tokens: { input: row.input_tokens, output: row.output_tokens, cacheWrite: row.cache_write_tokens, cacheRead: row.cache_read_tokens },
    },
  ];
}

/** A session of goose's database as the JSON lines read above: the session, then messages and usage rows by time. */
async function* snapshot(path: string, conversationId: string): AsyncGenerator<Buffer> {
  if (!path.endsWith('.db')) throw new Error(`${path} is not goose's sessions.db`);
  const ledger: Record<string, unknown>[] = [];
  try {
    for await (const row of sqliteRows(path, 'SELECT * FROM usage_ledger WHERE session_id = ? ORDER BY created_timestamp, id', [
      conversationId,
    ]))
      ledger.push(row);
  } catch {
    // Releases before the ledger: the session row's totals are all there is, and they are no request's.
  }
  async function* lines(): AsyncGenerator<unknown> {
    for await (const session of sqliteRows(path, 'SELECT * FROM sessions WHERE id = ?', [conversationId])) {
      const line: Record<string, unknown> = { ...session, model_config: parsed(session.model_config_json) };
      // Per-request rows are the usage; the session's totals would count it twice.
      if (ledger.length > 0) for (const name of Object.keys(line)) if (name.startsWith('accumulated_')) delete line[name];
      yield line;
    }
    let next = 0;
    for await (const row of sqliteRows(
      path,
      'SELECT role, content_json, metadata_json, created_timestamp FROM messages WHERE session_id = ? ORDER BY created_timestamp, id',
      [conversationId],
    )) {
      while (next < ledger.length && Number(ledger[next]!.created_timestamp) <= Number(row.created_timestamp))
        yield { usage: ledger[next++] };
      yield { role: row.role, created: row.created_timestamp, content: parsed(row.content_json), metadata: parsed(row.metadata_json) };
    }
    while (next < ledger.length) yield { usage: ledger[next++] };
  }
  yield* jsonLines(lines());
}

function parsed(value: unknown): unknown {
  if (typeof value !== 'string') return value ?? null;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

export const gooseTranscript: TranscriptFormat = {
  agent: 'goose',
  items,
  mayStartTurn: (text) => /"role":\s*"user"|"working_dir"/.test(text),
  usage: { mayHold: (text) => /"usage"|"accumulated_input_tokens"/.test(text), read: usage },
  recognizes: (record) =>
    isObject(record) &&
    ((typeof record.working_dir === 'string' && !('cwd' in record)) ||
      ((record.role === 'user' || record.role === 'assistant') && typeof record.created === 'number' && Array.isArray(record.content))),
  snapshot,
};
