// OpenCode keeps a session in its database (or, in older releases, a JSON file
// per message and per part under `storage/`): tracer's OpenCode plugin asks
// OpenCode for the session's messages on `session.idle` and writes them as
// JSON lines, `{info, parts}` per message, the file the hook snapshots.
// `info`: `{id, role, time: {created, completed}, modelID, providerID, tokens:
// {input, output, reasoning, cache: {read, write}}}` (input without the cache,
// output without the reasoning); `parts`: `text` (`synthetic` ones are
// OpenCode's own), `reasoning`, `tool` (`tool`, `callID`, `state: {status,
// input, output, error}`), `patch` (`files`), step markers.
import {
  firstString,
  isObject,
  isPatch,
  millisToIso,
  patchEdit,
  replaceEdit,
  str,
  textOf,
  writeEdit,
  type ItemDraft,
  type ToolEdit,
  type TranscriptFormat,
  type UsageDraft,
} from '../../../plugin/transcript.js';

const PATHS = ['filePath', 'file_path', 'path'];

function items(record: unknown): ItemDraft[] {
  if (!isObject(record) || !isObject(record.info) || !Array.isArray(record.parts)) return [];
  const info = record.info;
  const ts = millisToIso(isObject(info.time) ? info.time.created : undefined);
  const model = str(info.modelID);
  const person = info.role === 'user';
  const drafts: ItemDraft[] = [];
  for (const part of record.parts.filter(isObject)) {
    const at = millisToIso(isObject(part.time) ? part.time.start : undefined) ?? ts;
    switch (part.type) {
      case 'text':
        if (typeof part.text !== 'string' || part.text.trim() === '') break;
        if (person) drafts.push({ kind: 'message', role: part.synthetic === true ? 'system' : 'person', text: part.text, ts: at });
        else drafts.push({ kind: 'message', role: 'assistant', text: part.text, ts: at, model });
        break;
      case 'reasoning':
        drafts.push({ kind: 'thinking', text: textOf(part.text), ts: at, model });
        break;
      case 'tool': {
        const state = isObject(part.state) ? part.state : {};
        const name = str(part.tool) ?? 'tool';
        drafts.push({ kind: 'tool_call', id: str(part.callID), name, input: state.input, ...toolEdit(name, state.input), ts: at, model });
        if (state.status === 'completed' || state.status === 'error')
          drafts.push({
            kind: 'tool_result',
            id: str(part.callID),
            text: textOf(state.status === 'error' ? state.error : state.output),
            error: state.status === 'error',
            ts: at,
          });
        break;
      }
      case 'file':
        drafts.push({
          kind: 'message',
          role: person ? 'person' : 'assistant',
          text: `[file ${str(part.filename) ?? str(part.url) ?? ''}]`,
          ts: at,
        });
        break;
      default:
        break;
    }
  }
  return drafts;
}

/** write (`filePath`, `content`), edit (`oldString`, `newString`), multiedit (`edits`), patch (`patchText`). */
function toolEdit(name: string, input: unknown): Partial<ToolEdit> {
  if (!isObject(input)) return {};
  const patch = [input.patchText, input.patch, input.input].find(isPatch);
  if (patch !== undefined) return patchEdit(patch);
  const file = firstString(input, PATHS);
  if (file === undefined) return {};
  const before = [input.oldString, input.old_string].find((value): value is string => typeof value === 'string');
  const after = [input.newString, input.new_string].find((value): value is string => typeof value === 'string');
  if (before !== undefined && after !== undefined) return replaceEdit(file, before, after);
  if (name === 'write' && typeof input.content === 'string') return writeEdit(file, input.content);
  if (name === 'multiedit' || name === 'edit') return { files: [file] };
  return {};
}

function usage(record: unknown): UsageDraft[] {
  if (!isObject(record) || !isObject(record.info) || record.info.role !== 'assistant' || !('tokens' in record.info)) return [];
  const info = record.info;
  const tokens = isObject(info.tokens) ? info.tokens : {};
  const cache = isObject(tokens.cache) ? tokens.cache : {};
  const { output, reasoning = 0 } = tokens;
  return [
    {
      ...(str(info.id) ? { key: str(info.id) } : {}),
      ts: millisToIso(isObject(info.time) ? info.time.created : undefined),
      model: str(info.modelID),
      tokens: {
        input: tokens.input,
        output: typeof output === 'number' && typeof reasoning === 'number' ? output + reasoning : output,
        cacheWrite: cache.write ?? 0,
        cacheRead: cache.read ?? 0,
        reasoning,
      },
    },
  ];
}

export const opencodeTranscript: TranscriptFormat = {
  agent: 'opencode',
  items,
  mayStartTurn: (text) => /"role":\s*"user"/.test(text),
  usage: { mayHold: (text) => /"tokens"/.test(text), read: usage },
  recognizes: (record) => isObject(record) && isObject(record.info) && Array.isArray(record.parts),
};
