// Token usage of a transcript, through its agent's format: one record per model
// request, in its turn, counted once, each count checked before it counts. A
// count that is not a whole number, is negative, or is more than any request
// can hold is refused with a code and left out of every sum; an agent whose
// transcripts hold no usage says so (`usage: unknown`) rather than zero.
import type {
  ReadState,
  RefusedUsage,
  TranscriptFormat,
  TranscriptSource,
  UsageDraft,
  UsageRecord,
  UsageReport,
  UsageTokens,
} from '../core/transcript.js';
import { modelOf, START } from './read.js';
import { bufferLineRecords, readRawRecords, type RawRecord } from './records.js';

/** No one request reads or writes more tokens of one kind: the largest context windows hold a few million. */
export const REQUEST_TOKENS_MAX = 20_000_000;
/** Totals of a session or a run (an agent that writes only those): a busy week of one session stays far below. */
export const SESSION_TOKENS_MAX = 20_000_000_000;

const KINDS = ['input', 'output', 'cacheWrite', 'cacheRead'] as const;

interface Pending {
  draft: UsageDraft;
  turn: number;
  record: number;
  ts?: string;
}

export async function readUsage(source: TranscriptSource, format: TranscriptFormat): Promise<UsageReport> {
  const reader = format.usage;
  if ('unknown' in reader) return { usage: 'unknown', reason: reader.unknown };
  const state: ReadState = { own: {} };
  const pending: Pending[] = [];
  const byKey = new Map<string, Pending>();
  let turn = 0;
  let skipped = 0;
  const take = (record: RawRecord): void => {
    if (record.text === undefined) {
      skipped += 1;
      return;
    }
    const opens = !format.mayStartTurn || format.mayStartTurn(record.text);
    const holds = !reader.mayHold || reader.mayHold(record.text);
    if (!opens && !holds) return;
    let value: unknown;
    try {
      value = JSON.parse(record.text) as unknown;
    } catch {
      skipped += 1;
      return;
    }
    try {
      if (
        opens &&
        format.items(value, state).some((draft) => draft.kind === 'message' && draft.role === 'person' && draft.text.trim() !== '')
      )
        turn += 1;
      if (!holds) return;
      for (const draft of reader.read(value, state)) {
        const known = draft.key === undefined ? undefined : byKey.get(draft.key);
        if (known) {
          // The same message written again (a later line of it, a record rewritten): its last counts, once, where it began.
          known.draft = draft;
          continue;
        }
        const entry: Pending = {
          draft,
          turn,
          record: record.record,
          ...(typeof draft.ts === 'string' && draft.ts !== '' ? { ts: draft.ts } : {}),
        };
        pending.push(entry);
        if (draft.key !== undefined) byKey.set(draft.key, entry);
      }
    } catch {
      skipped += 1;
    }
  };
  const from = { offset: START.offset, record: START.record };
  const options = { documentMember: format.documentMember };
  // Bytes already in memory (most snapshots) are read without a promise per record.
  const inMemory = source.bytes && bufferLineRecords(source.bytes, from, options);
  if (inMemory) for (const record of inMemory) take(record);
  else for await (const record of readRawRecords(source, from, options)) take(record);
  return settle(pending, skipped);
}

/**
 * Usage an agent reported in its hook payloads instead of its transcript
 * (Cursor), as the trace rows keep it (`usage`): one record per turn, the
 * rows of one turn (`turn_id`) counted once. Undefined when no row has any.
 * `turn` is the order of the turn among those rows, from 1.
 */
export function usageFromTraces(rows: Iterable<unknown>): UsageReport | undefined {
  const pending: Pending[] = [];
  const byKey = new Map<string, Pending>();
  let line = 0;
  for (const row of rows) {
    line += 1;
    if (typeof row !== 'object' || row === null || !('usage' in row)) continue;
    const trace = row as { id?: unknown; ts?: unknown; model?: unknown; conversation_id?: unknown; turn_id?: unknown; usage?: unknown };
    const usage = typeof trace.usage === 'object' && trace.usage !== null ? (trace.usage as Record<string, unknown>) : {};
    const key = `${String(trace.conversation_id)}\0${typeof trace.turn_id === 'string' ? trace.turn_id : `#${String(trace.id ?? line)}`}`;
    const draft: UsageDraft = {
      key,
      ...(typeof trace.ts === 'string' ? { ts: trace.ts } : {}),
      ...(typeof trace.model === 'string' ? { model: trace.model } : {}),
      tokens: { input: usage.input, output: usage.output, cacheWrite: usage.cache_write, cacheRead: usage.cache_read },
    };
    const known = byKey.get(key);
    if (known) {
      known.draft = draft;
      continue;
    }
    const entry: Pending = { draft, turn: byKey.size + 1, record: line, ...(draft.ts ? { ts: draft.ts } : {}) };
    byKey.set(key, entry);
    pending.push(entry);
  }
  return pending.length === 0 ? undefined : settle(pending, 0);
}

function settle(pending: Pending[], skipped: number): UsageReport {
  const records: UsageRecord[] = [];
  const refused: RefusedUsage[] = [];
  const totals = zeroTotals();
  for (const entry of pending) {
    const scope = entry.draft.scope ?? 'request';
    const checked = checkTokens(entry.draft.tokens, scope === 'session' ? SESSION_TOKENS_MAX : REQUEST_TOKENS_MAX);
    if ('code' in checked) {
      refused.push({ record: entry.record, ...checked });
      continue;
    }
    const model = modelOf(entry.draft.model);
    records.push({
      turn: entry.turn,
      record: entry.record,
      ...(entry.ts ? { ts: entry.ts } : {}),
      ...(model ? { model } : {}),
      tokens: checked,
      scope,
    });
    addTokens(totals, checked);
  }
  // Usage there is but none of it counted: unknown, never $0 (every surface reads this report, so all of them say so).
  if (records.length === 0 && refused.length > 0)
    return {
      usage: 'unknown',
      reason: `None of its ${refused.length} usage record${refused.length === 1 ? '' : 's'} could be counted (${refused[0]!.code}: ${refused[0]!.message})`,
    };
  return { usage: 'known', records, refused, totals, skipped };
}

/** The counts, each a whole number from 0 to `max`; cache and reasoning counts an agent leaves out are 0, input and output must be there. */
export function checkTokens(tokens: UsageDraft['tokens'] | undefined, max: number): UsageTokens | { code: string; message: string } {
  if (typeof tokens !== 'object' || tokens === null)
    return { code: 'usage_malformed', message: 'The usage holds no token counts; it is not counted.' };
  const out: UsageTokens = { input: 0, output: 0, cacheWrite: 0, cacheRead: 0 };
  for (const kind of [...KINDS, 'reasoning', 'cacheWrite1h'] as const) {
    const value = tokens[kind];
    if (value === undefined || value === null) {
      if (kind === 'input' || kind === 'output')
        return { code: 'usage_malformed', message: `The usage has no ${kind} token count; it is not counted.` };
      continue;
    }
    if (typeof value !== 'number' || !Number.isFinite(value) || !Number.isInteger(value))
      return {
        code: 'usage_malformed',
        message: `The ${kind} token count ${describe(value)} is not a whole number; the usage is not counted.`,
      };
    if (value < 0) return { code: 'usage_negative', message: `The ${kind} token count ${value} is negative; the usage is not counted.` };
    if (value > max)
      return {
        code: 'usage_absurd',
        message: `The ${kind} token count ${value} is more than any request holds (${max}); the usage is not counted.`,
      };
    out[kind] = value;
  }
  // A part larger than its whole is not believed: the whole counts, the part is dropped.
  if (out.reasoning !== undefined && out.reasoning > out.output) delete out.reasoning;
  if (out.cacheWrite1h !== undefined && (out.cacheWrite1h > out.cacheWrite || out.cacheWrite1h === 0)) delete out.cacheWrite1h;
  return out;
}

function describe(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** The sum of some usage records' tokens. */
export function sumTokens(records: readonly UsageRecord[]): UsageTokens {
  const totals = zeroTotals();
  for (const record of records) addTokens(totals, record.tokens);
  return totals;
}

/** Totals start with every kind, the parts (reasoning, hour-long cache writes) included, at 0. */
export function zeroTotals(): UsageTokens {
  return { input: 0, output: 0, cacheWrite: 0, cacheRead: 0, reasoning: 0, cacheWrite1h: 0 };
}

export function addTokens(into: UsageTokens, more: UsageTokens): void {
  for (const kind of KINDS) into[kind] += more[kind];
  into.reasoning = (into.reasoning ?? 0) + (more.reasoning ?? 0);
  into.cacheWrite1h = (into.cacheWrite1h ?? 0) + (more.cacheWrite1h ?? 0);
}
