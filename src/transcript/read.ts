// An agent's transcript as items in order, through the agent's TranscriptFormat:
// a window from a cursor (a page of the session page, a few turns for
// `tracer mcp`), or every item, streamed (the search index). The reader gives
// each item its place (turn, step, record, offset) and clips what is long; the
// format only says what a record holds. A record that does not parse, or that a
// format cannot read, is counted as skipped and never stops the read.
import type { ItemDraft, ReadState, TranscriptCursor, TranscriptFormat, TranscriptItem, TranscriptSource } from '../core/transcript.js';
import { readRawRecords, type RawRecord } from './records.js';

/** Text longer than this is cut (`truncated`); the page shows that it was. */
const TEXT_MAX = 100_000;
const INPUT_MAX = 20_000;
/** A model name longer than this, or with other than printable ASCII, is no model name. */
const MODEL = /^[\x21-\x7e][\x20-\x7e]{0,249}$/;

export interface WindowOptions {
  /** Where to start; the start of the transcript when absent. */
  from?: TranscriptCursor;
  /** Stop once this many items are read (a record is never split: its items all come). */
  maxItems?: number;
  /** Stop once this many bytes of records are read. */
  maxBytes?: number;
  /** Stop before the record that opens this turn. */
  untilTurn?: number;
}

export interface TranscriptWindow {
  items: TranscriptItem[];
  /** Where the next window starts; null at the end of the transcript. */
  next: TranscriptCursor | null;
  /** Bytes read up to, and in all. */
  position: number;
  size: number;
  /** Records that were torn, not JSON, too long, or that the format could not read. */
  skipped: number;
}

export const START: TranscriptCursor = { offset: 0, record: 0, turn: 0, step: 0, container: 'lines' };

export async function readWindow(
  source: TranscriptSource,
  format: TranscriptFormat,
  options: WindowOptions = {},
): Promise<TranscriptWindow> {
  const from = options.from ?? START;
  const placer = new Placer(from);
  const items: TranscriptItem[] = [];
  let skipped = 0;
  let position = from.offset;
  let stopped = false;
  for await (const record of recordsFrom(source, format, from)) {
    const full =
      (options.maxItems !== undefined && items.length >= options.maxItems) ||
      (options.maxBytes !== undefined && position - from.offset >= options.maxBytes);
    if (full) {
      stopped = true;
      break;
    }
    const before = placer.save();
    const placed = placer.place(record, format);
    if (placed === undefined) skipped += 1;
    else if (options.untilTurn !== undefined && placed.some((item) => item.turn >= options.untilTurn!)) {
      placer.restore(before);
      stopped = true;
      break;
    } else items.push(...placed);
    position = record.end;
    placer.advance(record);
  }
  return { items, next: stopped ? placer.cursor(position) : null, position, size: source.size, skipped };
}

/** Every item, streamed: memory stays that of one record whatever the transcript's size. */
export async function* readItems(
  source: TranscriptSource,
  format: TranscriptFormat,
  from: TranscriptCursor = START,
): AsyncGenerator<TranscriptItem> {
  const placer = new Placer(from);
  for await (const record of recordsFrom(source, format, from)) {
    const placed = placer.place(record, format);
    if (placed) yield* placed;
    placer.advance(record);
  }
}

/**
 * Where each turn starts: element `t` is the cursor at the record holding turn
 * `t`'s prompt (element 0, the start). Records the format's `mayStartTurn`
 * rules out are not parsed, so the scan runs near the speed of reading.
 */
export async function turnStarts(source: TranscriptSource, format: TranscriptFormat): Promise<TranscriptCursor[]> {
  const starts: TranscriptCursor[] = [START];
  const state: ReadState = { own: {} };
  let turn = 0;
  for await (const record of recordsFrom(source, format, START)) {
    if (record.text === undefined || (format.mayStartTurn && !format.mayStartTurn(record.text))) continue;
    const value = parse(record.text);
    if (value === undefined) continue;
    const model = state.model;
    const drafts = draftsOf(format, value, state);
    if (drafts?.some(opensTurn)) {
      starts.push({
        offset: record.start,
        record: record.record - 1,
        turn,
        step: 0,
        container: record.container,
        ...(model ? { model } : {}),
      });
      turn += 1;
    }
  }
  return starts;
}

function recordsFrom(source: TranscriptSource, format: TranscriptFormat, from: TranscriptCursor): AsyncGenerator<RawRecord> {
  // A cursor at the very start leaves the layout to be found; any other carries it.
  const container = from.offset === 0 && from.record === 0 ? undefined : from.container;
  return readRawRecords(source, { offset: from.offset, record: from.record, container }, { documentMember: format.documentMember });
}

/** Gives the items of each record their place, as a read goes. */
class Placer {
  turn: number;
  private step: number;
  private record: number;
  private container: TranscriptCursor['container'];
  private readonly state: ReadState;

  constructor(from: TranscriptCursor) {
    this.turn = from.turn;
    this.step = from.step;
    this.record = from.record;
    this.container = from.container;
    this.state = { own: {}, ...(from.model ? { model: from.model } : {}), ...(from.carry !== undefined ? { carry: from.carry } : {}) };
  }

  save(): { turn: number; step: number; model: string | undefined; carry: string | undefined } {
    return { turn: this.turn, step: this.step, model: this.state.model, carry: JSON.stringify(this.state.carry) };
  }

  restore(saved: ReturnType<Placer['save']>): void {
    this.turn = saved.turn;
    this.step = saved.step;
    this.state.model = saved.model;
    this.state.carry = saved.carry === undefined ? undefined : (JSON.parse(saved.carry) as unknown);
  }

  advance(record: RawRecord): void {
    this.record = record.record;
    this.container = record.container;
  }

  cursor(offset: number): TranscriptCursor {
    const { model, carry } = this.state;
    return {
      offset,
      record: this.record,
      turn: this.turn,
      step: this.step,
      container: this.container,
      ...(model ? { model } : {}),
      ...(carry !== undefined ? { carry: JSON.parse(JSON.stringify(carry)) as unknown } : {}),
    };
  }

  /** The record's items, or undefined when it is skipped. */
  place(record: RawRecord, format: TranscriptFormat): TranscriptItem[] | undefined {
    if (record.text === undefined) return undefined;
    const value = parse(record.text);
    if (value === undefined) return undefined;
    const drafts = draftsOf(format, value, this.state);
    if (drafts === undefined) return undefined;
    const items: TranscriptItem[] = [];
    let opened = false;
    for (const draft of drafts) {
      const item = finish(draft, this.state);
      if (item === undefined) continue;
      // A prompt written as several blocks (text, then an attached file's text) is one turn.
      if (opensTurn(draft) && !opened) {
        opened = true;
        this.turn += 1;
        this.step = 0;
      }
      items.push({ ...item, turn: this.turn, step: this.step, record: record.record, offset: record.start } as TranscriptItem);
      this.step += 1;
    }
    return items;
  }
}

function opensTurn(draft: ItemDraft): boolean {
  return draft.kind === 'message' && draft.role === 'person' && draft.text.trim() !== '';
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A format that throws on a record it did not expect skips that record, never the read. */
function draftsOf(format: TranscriptFormat, value: unknown, state: ReadState): ItemDraft[] | undefined {
  try {
    const drafts = format.items(value, state);
    if (state.model !== undefined && !MODEL.test(state.model)) delete state.model;
    return Array.isArray(drafts) ? drafts : undefined;
  } catch {
    return undefined;
  }
}

/** An item before the reader gives it its place (Omit over each member of the union). */
type Unplaced = TranscriptItem extends infer Item
  ? Item extends unknown
    ? Omit<Item, 'turn' | 'step' | 'record' | 'offset'>
    : never
  : never;

/** A draft as an item without its place; undefined for one with nothing to show. */
function finish(draft: ItemDraft, state: ReadState): Unplaced | undefined {
  const ts = typeof draft.ts === 'string' && draft.ts !== '' ? { ts: draft.ts.slice(0, 64) } : {};
  const model =
    draft.kind === 'message' || draft.kind === 'thinking' || draft.kind === 'tool_call' ? modelOf(draft.model ?? state.model) : undefined;
  const withModel = model ? { model } : {};
  switch (draft.kind) {
    case 'message':
      if (typeof draft.text !== 'string' || draft.text.trim() === '') return undefined;
      return { kind: 'message', role: draft.role, ...clip(draft.text, TEXT_MAX), ...ts, ...(draft.role === 'assistant' ? withModel : {}) };
    case 'thinking':
      if (typeof draft.text !== 'string' || draft.text.trim() === '') return undefined;
      return { kind: 'thinking', role: 'assistant', ...clip(draft.text, TEXT_MAX), ...ts, ...withModel };
    case 'tool_call': {
      const shown = typeof draft.input === 'string' ? draft.input : (JSON.stringify(draft.input ?? null, null, 2) ?? 'null');
      const files = Array.isArray(draft.files)
        ? draft.files.filter((file): file is string => typeof file === 'string' && file !== '').slice(0, 1_000)
        : [];
      const { text: input, truncated } = clip(shown, INPUT_MAX);
      return {
        kind: 'tool_call',
        role: 'assistant',
        ...(typeof draft.id === 'string' && draft.id !== '' ? { id: draft.id } : {}),
        name: typeof draft.name === 'string' && draft.name !== '' ? draft.name.slice(0, 200) : 'tool',
        input,
        files,
        ...(Array.isArray(draft.diff) ? { diff: draft.diff } : {}),
        ...(truncated ? { truncated } : {}),
        ...ts,
        ...withModel,
      };
    }
    case 'tool_result':
      return {
        kind: 'tool_result',
        role: 'tool',
        ...(typeof draft.id === 'string' && draft.id !== '' ? { id: draft.id } : {}),
        ...clip(typeof draft.text === 'string' ? draft.text : '', TEXT_MAX),
        ...(draft.error === true ? { error: true as const } : {}),
        ...ts,
      };
    case 'meta':
      if (typeof draft.text !== 'string' || draft.text.trim() === '') return undefined;
      return { kind: 'meta', role: 'system', text: draft.text.slice(0, TEXT_MAX), ...ts };
    default:
      return undefined;
  }
}

export function modelOf(value: unknown): string | undefined {
  return typeof value === 'string' && MODEL.test(value) ? value : undefined;
}

function clip(text: string, max: number): { text: string; truncated?: true } {
  return text.length <= max ? { text } : { text: text.slice(0, max), truncated: true };
}
