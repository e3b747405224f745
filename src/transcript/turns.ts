// A window of a transcript by turn, as `tracer mcp read_conversation` asks for
// it: where each turn starts is found once per snapshot (a scan that parses
// only the records that may hold a prompt) and kept, keyed by the snapshot's
// content id, whose bytes never change; each window then reads from its turn's
// start and stops at the next turn or at its bounds.
import type { TranscriptCursor, TranscriptFormat, TranscriptSource } from '../core/transcript.js';
import { readWindow, turnStarts, type TranscriptWindow } from './read.js';

/** Snapshots whose turn starts are kept (a few KB each), the least recently used dropped first. */
const KEPT = 32;
const kept = new Map<string, Promise<TranscriptCursor[]>>();

export interface TurnWindowOptions {
  /** The first turn wanted (0: what comes before the person's first prompt). */
  turn: number;
  /** How many turns, from `turn` on (default 1). */
  turns?: number;
  /** At most this many items, and this many bytes of records (the window's `next` goes on from there). */
  maxItems: number;
  maxBytes: number;
  /** The snapshot's content id (its sha256): the scan for turn starts is made once per key. */
  key?: string;
}

export interface TurnWindow extends TranscriptWindow {
  /** Turns in the transcript (the last turn's number). */
  lastTurn: number;
}

export async function readTurns(source: TranscriptSource, format: TranscriptFormat, options: TurnWindowOptions): Promise<TurnWindow> {
  const starts = await startsOf(source, format, options.key);
  const lastTurn = starts.length - 1;
  const from = starts[Math.max(0, Math.min(options.turn, lastTurn))]!;
  if (options.turn > lastTurn) return { items: [], next: null, position: source.size, size: source.size, skipped: 0, lastTurn };
  const window = await readWindow(source, format, {
    from,
    untilTurn: options.turn + Math.max(1, options.turns ?? 1),
    maxItems: options.maxItems,
    maxBytes: options.maxBytes,
  });
  return { ...window, lastTurn };
}

function startsOf(source: TranscriptSource, format: TranscriptFormat, key: string | undefined): Promise<TranscriptCursor[]> {
  if (key === undefined) return turnStarts(source, format);
  const id = `${format.agent}\0${key}`;
  let found = kept.get(id);
  if (found) kept.delete(id);
  else {
    found = turnStarts(source, format);
    // A failed scan is not kept: the next call scans again.
    found.catch(() => kept.delete(id));
  }
  kept.set(id, found);
  while (kept.size > KEPT) kept.delete(kept.keys().next().value!);
  return found;
}
