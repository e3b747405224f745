// Spans of found secrets, and the stretches of text redaction looks at: the
// arithmetic the engine (engine.ts) does on offsets, apart from what it decides.
import { PLACEHOLDER } from './placeholder.js';

/** Placeholder remnants and separators: what is left of a span cut by a placeholder and shorter than this is no secret. */
export const MIN_SECRET_CHARS = 4;

export interface Span {
  start: number;
  end: number;
  rule: string;
  /** The detector's place in the list, catch-alls after the others: the first one's rule names a merged span. */
  rank: number;
}

/** Spans sorted and overlapping ones joined: nothing of a secret two rules found differently is left. */
export function merge(spans: Span[]): Span[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: Span[] = [];
  for (const span of sorted) {
    const last = merged.at(-1);
    if (last && span.start < last.end) {
      if (span.end > last.end) last.end = span.end;
      if (span.rank < last.rank) Object.assign(last, { rule: span.rule, rank: span.rank });
    } else merged.push({ ...span });
  }
  return merged;
}

/** Spans with what lies inside existing placeholders taken out (`shift`: where `text` starts in the spans' coordinates). */
export function outsidePlaceholders(text: string, spans: readonly Span[], shift: number): Span[] {
  if (spans.length === 0 || !text.includes('[REDACTED:')) return [...spans];
  const held: Array<[number, number]> = [];
  for (const match of text.matchAll(PLACEHOLDER)) held.push([match.index! + shift, match.index! + shift + match[0].length]);
  const kept: Span[] = [];
  for (const span of spans) {
    let pieces: Array<[number, number]> = [[span.start, span.end]];
    // Only the placeholders the span reaches: a redacted text holds as many as it had secrets, and so many spans.
    for (let index = firstEndingAfter(held, span.start); index < held.length && held[index]![0] < span.end; index += 1) {
      const [start, end] = held[index]!;
      pieces = pieces.flatMap(([a, b]): Array<[number, number]> => {
        if (end <= a || start >= b) return [[a, b]];
        const around: Array<[number, number]> = [
          [a, Math.min(b, start)],
          [Math.max(a, end), b],
        ];
        return around.filter(([x, y]) => y - x >= MIN_SECRET_CHARS);
      });
    }
    for (const [start, end] of pieces) kept.push({ ...span, start, end });
  }
  return kept;
}

/** The first of these ranges (in order, none overlapping) that ends after `offset`. */
function firstEndingAfter(ranges: ReadonlyArray<[number, number]>, offset: number): number {
  let low = 0;
  let high = ranges.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (ranges[middle]![1] <= offset) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The stretches of `value` to give a detector: whole lines from WINDOW_BEFORE
 * before each hit to `reach` after it, joined where they meet; all of it when the
 * detector has no reach or its hits are not known.
 */
export function windows(value: string, hits: readonly number[] | undefined, reach: number | undefined): Array<[number, number]> {
  if (!hits || reach === undefined || value.length <= 2 * (reach + WINDOW_BEFORE)) return [[0, value.length]];
  const ranges: Array<[number, number]> = [];
  for (const hit of [...hits].sort((a, b) => a - b)) {
    const from = lineStartAt(value, Math.max(0, hit - WINDOW_BEFORE));
    const to = lineEndAt(value, Math.min(value.length, hit + reach));
    const last = ranges.at(-1);
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else ranges.push([from, to]);
  }
  return ranges;
}

/** How far before a trigger's hit a secret may start: a name, a scheme, a PEM header. */
export const WINDOW_BEFORE = 256;

/** A pattern's top-level alternatives (`a|b(c|d)|e` → `a`, `b(c|d)`, `e`), each wrapped so it keeps its meaning alone. */
export function topLevelAlternatives(source: string): string[] {
  return splitAlternatives(source).map((alternative) => `(?:${alternative})`);
}

/** A pattern's (or a group's) top-level alternatives, as they are written. */
export function splitAlternatives(source: string): string[] {
  const alternatives: string[] = [];
  let depth = 0;
  let inClass = false;
  let from = 0;
  for (let index = 0; index < source.length; index += 1) {
    const char = source[index];
    if (char === '\\') index += 1;
    else if (inClass) inClass = char !== ']';
    else if (char === '[') inClass = true;
    else if (char === '(') depth += 1;
    else if (char === ')') depth -= 1;
    else if (char === '|' && depth === 0) {
      alternatives.push(source.slice(from, index));
      from = index + 1;
    }
  }
  alternatives.push(source.slice(from));
  return alternatives;
}

export function lineStartAt(text: string, index: number): number {
  return index <= 0 ? 0 : text.lastIndexOf('\n', index - 1) + 1;
}

export function lineEndAt(text: string, index: number): number {
  const end = text.indexOf('\n', index);
  return end === -1 ? text.length : end;
}

/**
 * `items` added to `target` one by one: `push(...items)` passes each as an argument, and a text full of
 * secrets gives hundreds of thousands of them, past the stack's room (a crash that cost a snapshot).
 */
export function append<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}
