// Codex CLI's rollout (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`): lines
// `{timestamp, type, payload}`. `session_meta` opens it; `turn_context` names the
// model of the turn; `response_item` holds the conversation (messages,
// reasoning, function and custom tool calls and their outputs); `event_msg`
// repeats the messages for the UI (not read twice) and carries `token_count`.
// A user message may be Codex's own context (AGENTS.md, <environment_context>):
// that is no prompt of the person's.
//
// token_count: `info.total_token_usage` is the session's running total,
// `info.last_token_usage` the latest request's; the same event is often written
// twice. A request's usage is the growth of the total (a repeat adds nothing);
// where there is no total, the last usage. OpenAI counts cached input inside
// `input_tokens` and reasoning inside `output_tokens`: the cached part is taken
// out of the input.
import {
  isObject,
  isPatch,
  parseMaybeJson,
  patchEdit,
  str,
  textOf,
  type ItemDraft,
  type ReadState,
  type ToolEdit,
  type TranscriptFormat,
  type UsageDraft,
} from '../../../plugin/transcript.js';

const CONTEXT =
  /^\s*(?:<environment_context>|<user_instructions>|<INSTRUCTIONS>|# AGENTS\.md instructions|<turn_aborted>|<user_shell_command>)/;

function items(record: unknown, state: ReadState): ItemDraft[] {
  if (!isObject(record)) return [];
  const ts = str(record.timestamp);
  const payload = isObject(record.payload) ? record.payload : {};
  if (record.type === 'session_meta') {
    const cwd = str(payload.cwd);
    return [{ kind: 'meta', text: `Codex session${cwd ? ` in ${cwd}` : ''}`, ts }];
  }
  if (record.type === 'turn_context') {
    const model = str(payload.model);
    if (model) state.model = model;
    return [];
  }
  if (record.type !== 'response_item') return [];
  switch (payload.type) {
    case 'message':
      return message(payload, ts);
    case 'reasoning':
      return [{ kind: 'thinking', text: textOf(payload.summary), ts }];
    case 'function_call':
    case 'custom_tool_call':
    case 'local_shell_call': {
      const input = parseMaybeJson(payload.arguments ?? payload.input ?? payload.action);
      const name = str(payload.name) ?? 'shell';
      return [{ kind: 'tool_call', id: str(payload.call_id), name, input, ...toolEdit(input), ts }];
    }
    case 'function_call_output':
    case 'custom_tool_call_output': {
      const output = parseMaybeJson(payload.output);
      const text = isObject(output) && typeof output.output === 'string' ? output.output : textOf(output);
      const exit = isObject(output) && isObject(output.metadata) ? output.metadata.exit_code : undefined;
      return [{ kind: 'tool_result', id: str(payload.call_id), text, error: typeof exit === 'number' && exit !== 0, ts }];
    }
    default:
      return [];
  }
}

/** A message's blocks: the person's own words, and the context Codex sends in the person's name. */
function message(payload: Record<string, unknown>, ts: string | undefined): ItemDraft[] {
  if (payload.role === 'assistant') return [{ kind: 'message', role: 'assistant', text: textOf(payload.content), ts }];
  if (payload.role !== 'user') return [{ kind: 'message', role: 'system', text: textOf(payload.content), ts }];
  const blocks = Array.isArray(payload.content) ? payload.content : [payload.content];
  const person: string[] = [];
  const context: string[] = [];
  for (const block of blocks) {
    const text = textOf(block);
    if (text !== '') (CONTEXT.test(text) ? context : person).push(text);
  }
  const drafts: ItemDraft[] = [];
  if (person.length > 0) drafts.push({ kind: 'message', role: 'person', text: person.join('\n\n'), ts });
  if (context.length > 0) drafts.push({ kind: 'message', role: 'system', text: context.join('\n\n'), ts });
  return drafts;
}

/** apply_patch, as the input itself, in `input` or `patch`, or in a shell command (a string or an argv). */
function toolEdit(input: unknown): Partial<ToolEdit> {
  const candidates = isObject(input) ? [input.input, input.patch, input.command, input.cmd] : [input];
  for (const candidate of candidates) {
    const text = Array.isArray(candidate) ? candidate.filter((part) => typeof part === 'string').join('\n') : candidate;
    if (isPatch(text)) return patchEdit(text.slice(text.indexOf('*** Begin Patch')));
  }
  return {};
}

const COUNTS = ['input_tokens', 'cached_input_tokens', 'output_tokens', 'reasoning_output_tokens'] as const;
type Counts = Partial<Record<(typeof COUNTS)[number], unknown>>;

function usage(record: unknown, state: ReadState): UsageDraft[] {
  if (!isObject(record) || record.type !== 'event_msg' || !isObject(record.payload) || record.payload.type !== 'token_count') return [];
  const info = record.payload.info;
  if (!isObject(info)) return [];
  const total = isObject(info.total_token_usage) ? (info.total_token_usage as Counts) : undefined;
  const last = isObject(info.last_token_usage) ? (info.last_token_usage as Counts) : undefined;
  const previous = state.own.total as Counts | undefined;
  let counts: Counts | undefined;
  if (total && hasCounts(total)) {
    state.own.total = total;
    if (previous && COUNTS.every((name) => (total[name] ?? 0) === (previous[name] ?? 0))) return [];
    const grew = previous && COUNTS.every((name) => num(total[name]) >= num(previous[name]));
    // A total that went down started over (a new run of the session): its last request stands alone.
    counts = grew ? minus(total, previous) : previous ? (last ?? total) : total;
  } else if (last) {
    const seen = JSON.stringify(info);
    if (state.own.lastInfo === seen) return [];
    state.own.lastInfo = seen;
    counts = last;
  }
  if (!counts) return [];
  const input = counts.input_tokens;
  const cached = counts.cached_input_tokens ?? 0;
  return [
    {
      ts: str(record.timestamp),
      model: state.model,
      tokens: {
        input: typeof input === 'number' && typeof cached === 'number' ? input - cached : input,
        output: counts.output_tokens,
        cacheWrite: 0,
        cacheRead: cached,
        reasoning: counts.reasoning_output_tokens,
      },
    },
  ];
}

function hasCounts(counts: Counts): boolean {
  return typeof counts.input_tokens === 'number' || typeof counts.output_tokens === 'number';
}

function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

function minus(total: Counts, previous: Counts): Counts {
  const out: Counts = {};
  for (const name of COUNTS) out[name] = typeof total[name] === 'number' ? num(total[name]) - num(previous[name]) : total[name];
  return out;
}

export const codexTranscript: TranscriptFormat = {
  agent: 'codex',
  items,
  mayStartTurn: (text) => /"role":\s*"user"|"turn_context"/.test(text),
  usage: { mayHold: (text) => /"token_count"|"turn_context"/.test(text), read: usage },
  recognizes: (record) =>
    isObject(record) &&
    isObject(record.payload) &&
    (record.type === 'session_meta' || record.type === 'response_item' || record.type === 'turn_context' || record.type === 'event_msg'),
};
