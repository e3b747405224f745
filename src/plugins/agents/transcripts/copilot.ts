// GitHub Copilot CLI's session events (`~/.copilot/session-state/<sessionId>/
// events.jsonl`): `{type, data, timestamp}` lines. `session.start` (with
// `selectedModel`) and `session.model_change` (`newModel`) name the model;
// `user.message` and `assistant.message` (`content`, `toolRequests` whose
// `arguments` are a JSON string in 1.x); `tool.execution_complete` (`result`:
// `{content}` or `{result_type, text_result_for_llm}`). Token counts come only
// at `session.shutdown`, per model for the run (`modelMetrics.<model>.usage`,
// `inputTokens` counting cache reads and writes in): a run's totals, not a turn's.
import {
  firstString,
  isObject,
  parseMaybeJson,
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

function items(record: unknown, state: ReadState): ItemDraft[] {
  if (!isObject(record) || typeof record.type !== 'string' || !isObject(record.data)) return [];
  const ts = str(record.timestamp);
  const data = record.data;
  switch (record.type) {
    case 'session.start': {
      const model = str(data.selectedModel);
      if (model) state.model = model;
      return [{ kind: 'meta', text: `Copilot CLI session${model ? ` (${model})` : ''}`, ts }];
    }
    case 'session.model_change': {
      const model = str(data.newModel);
      if (!model) return [];
      state.model = model;
      return [{ kind: 'meta', text: `Model: ${model}`, ts }];
    }
    case 'user.message':
      return [{ kind: 'message', role: 'person', text: textOf(data.content), ts }];
    case 'assistant.message': {
      const drafts: ItemDraft[] = [{ kind: 'message', role: 'assistant', text: textOf(data.content), ts }];
      for (const request of Array.isArray(data.toolRequests) ? data.toolRequests.filter(isObject) : []) {
        const name = str(request.name) ?? 'tool';
        const input = parseMaybeJson(request.arguments);
        drafts.push({ kind: 'tool_call', id: str(request.toolCallId), name, input, ...toolEdit(name, input), ts });
      }
      return drafts;
    }
    case 'tool.execution_complete': {
      const result = isObject(data.result)
        ? (data.result.content ?? data.result.text_result_for_llm ?? data.result.textResultForLlm)
        : data.result;
      const failed = data.success === false || (isObject(data.result) && data.result.result_type === 'failure');
      return [{ kind: 'tool_result', id: str(data.toolCallId), text: textOf(result), error: failed, ts }];
    }
    default:
      return [];
  }
}

/** `create` (`path`, `file_text`) and `edit` (`path`, `old_str`, `new_str`). */
function toolEdit(name: string, input: unknown): Partial<ToolEdit> {
  if (!isObject(input)) return {};
  const file = firstString(input, ['path', 'file_path']);
  if (file === undefined) return {};
  if (name === 'create' && typeof (input.file_text ?? input.content) === 'string')
    return writeEdit(file, (input.file_text ?? input.content) as string);
  if (name === 'edit' && typeof input.old_str === 'string' && typeof input.new_str === 'string')
    return replaceEdit(file, input.old_str, input.new_str);
  return {};
}

function usage(record: unknown): UsageDraft[] {
  if (!isObject(record) || record.type !== 'session.shutdown' || !isObject(record.data) || !isObject(record.data.modelMetrics)) return [];
  const ts = str(record.timestamp);
  return Object.entries(record.data.modelMetrics).flatMap(([model, metrics]): UsageDraft[] => {
    const counts = isObject(metrics) && isObject(metrics.usage) ? metrics.usage : {};
    const { inputTokens: all, cacheReadTokens: read = 0, cacheWriteTokens: written = 0, outputTokens, reasoningTokens } = counts;
    const fresh = typeof all === 'number' && typeof read === 'number' && typeof written === 'number' ? all - read - written : all;
    return [
      {
        ts,
        model,
        scope: 'session',
        tokens: { input: fresh, output: outputTokens, cacheWrite: written, cacheRead: read, reasoning: reasoningTokens },
      },
    ];
  });
}

export const copilotTranscript: TranscriptFormat = {
  agent: 'copilot',
  items,
  mayStartTurn: (text) => /"user\.message"|"session\.start"|"session\.model_change"/.test(text),
  usage: { mayHold: (text) => /"session\.shutdown"/.test(text), read: usage },
  recognizes: (record) =>
    isObject(record) && typeof record.type === 'string' && /^(session|user|assistant|tool)\./.test(record.type) && isObject(record.data),
};
