// The one redaction engine: capture, push, `tracer redact` and the service's
// gate all run text through a Redactor made of the detectors the plugins added.
//
// How it stays cheap on a transcript (megabytes of JSON lines, hardly ever a
// secret): every detector's trigger is joined into one expression per flag set
// and run once over the text; only lines it hits go any further. A JSON line is
// then given to the detectors whole, and each of its strings that holds escapes
// decoded on its own as well (a `\"` hides a quoted value from a pattern run on
// the raw line); a secret is replaced inside its own string, which is encoded
// again, so every other byte of the line stays as it was. A plain-text line is
// looked at with the lines around it (a PEM key spans many).
//
// Nothing a detector finds inside a placeholder counts, and a redacted line is
// looked at again, so redacting redacted text changes nothing.
import { LiteralUnits, looksLikeJson, stringLiterals } from './json-strings.js';
import { kindOf, PLACEHOLDER, placeholder, type Fingerprint } from './placeholder.js';
import type { DetectedSecret, RedactionDetector, RedactionProblem } from './types.js';

/** A secret found in the text given to the engine: `[start, end)`, and the rule that found it. */
export interface Finding {
  rule: string;
  start: number;
  end: number;
}

export interface RedactedText {
  text: string;
  findings: Finding[];
}

/** Plain-text lines looked at around a line a trigger hit: a PEM key and its markers fit. */
const CONTEXT_LINES = 64;
/** ...but never more text than this either side. */
const CONTEXT_CHARS = 64 * 1024;
/** Redacted units looked at again: a finding there is redacted once more, then the text is taken as it is. */
const VERIFY_PASSES = 2;
/** Placeholder remnants and separators: what is left of a span cut by a placeholder and shorter than this is no secret. */
const MIN_SECRET_CHARS = 4;

interface Span {
  start: number;
  end: number;
  rule: string;
  /** The detector's place in the list, catch-alls after the others: the first one's rule names a merged span. */
  rank: number;
}

interface TriggeredDetector {
  detector: RedactionDetector;
  rank: number;
  /** The trigger without the global flag, for testing one unit. */
  test?: RegExp;
}

/** What to change in a text: a plain stretch with spans, or one string of a JSON line with spans in its decoded value. */
type Change =
  | { kind: 'plain'; start: number; end: number; spans: Span[] }
  | { kind: 'string'; start: number; end: number; units: LiteralUnits; value: string; spans: Span[]; offset: number };

export interface RedactorOptions {
  /** Makes placeholders; without one the redactor only finds (the service's gate). */
  fingerprint?: Fingerprint;
  /** Where a detector's failure is reported, once per detector. */
  report?: (problem: RedactionProblem) => void;
}

export class Redactor {
  readonly detectors: readonly RedactionDetector[];
  readonly #triggered: TriggeredDetector[] = [];
  /** Detectors without a trigger: run over all text. */
  readonly #untriggered: TriggeredDetector[] = [];
  /** One global expression per flag set, joining the triggers. */
  readonly #triggers: RegExp[] = [];
  readonly #fingerprint?: Fingerprint;
  readonly #report: (problem: RedactionProblem) => void;
  readonly #failed = new Set<RedactionDetector>();

  constructor(detectors: readonly RedactionDetector[], options: RedactorOptions = {}) {
    this.detectors = detectors;
    this.#fingerprint = options.fingerprint;
    this.#report = options.report ?? (() => undefined);
    const sources = new Map<string, string[]>();
    detectors.forEach((detector, index) => {
      const rank = (detector.fallback ? detectors.length : 0) + index;
      const trigger = detector.trigger;
      if (!trigger) return this.#untriggered.push({ detector, rank });
      const flags = trigger.flags.replace(/[gy]/g, '');
      this.#triggered.push({ detector, rank, test: new RegExp(trigger.source, flags) });
      sources.set(flags, [...(sources.get(flags) ?? []), `(?:${trigger.source})`]);
    });
    for (const [flags, parts] of sources) this.#triggers.push(new RegExp(parts.join('|'), `${flags}g`));
  }

  /** The text with every secret replaced by its placeholder, and what was found (offsets in `text`). */
  async redact(text: string): Promise<RedactedText> {
    if (!this.#fingerprint) throw new Error('Redactor.redact needs a fingerprint');
    return this.#redact(text, 0);
  }

  /** What would be redacted, without changing anything. */
  async find(text: string): Promise<Finding[]> {
    const changes = await this.#changes(text);
    return changes.flatMap((change) => findingsOf(change));
  }

  async close(): Promise<void> {
    for (const detector of this.detectors) await detector.close?.();
  }

  async #redact(text: string, depth: number): Promise<RedactedText> {
    const changes = await this.#changes(text);
    if (changes.length === 0) return { text, findings: [] };
    const findings: Finding[] = [];
    const parts: string[] = [];
    let position = 0;
    for (const change of changes) {
      findings.push(...findingsOf(change));
      // A string is looked at again decoded, as its detectors saw it, and only then encoded.
      let replaced = this.#apply(change, text);
      if (depth < VERIFY_PASSES) replaced = (await this.#redact(replaced, depth + 1)).text;
      parts.push(text.slice(position, change.start), change.kind === 'plain' ? replaced : JSON.stringify(replaced));
      position = change.end;
    }
    parts.push(text.slice(position));
    return { text: parts.join(''), findings };
  }

  /** The replacement of one change: a plain stretch, or a string's decoded value, with placeholders. */
  #apply(change: Change, text: string): string {
    const fingerprint = this.#fingerprint!;
    const source = change.kind === 'plain' ? text.slice(change.start, change.end) : change.value;
    const base = change.kind === 'plain' ? change.start : 0;
    let out = '';
    let position = 0;
    for (const span of change.spans) {
      const start = span.start - base;
      const end = span.end - base;
      out += source.slice(position, start) + placeholder(kindOf(span.rule), fingerprint(source.slice(start, end)));
      position = end;
    }
    return out + source.slice(position);
  }

  /** Every change the text needs, in order, none overlapping. */
  async #changes(text: string): Promise<Change[]> {
    const candidates = this.#candidateLines(text);
    const untriggered = new Map<number, Span[]>();
    for (const entry of this.#untriggered) {
      for (const span of await this.#detect(entry, text, 0)) {
        const lineStart = lineStartAt(text, span.start);
        candidates.set(lineStart, lineEndAt(text, span.start));
        untriggered.set(lineStart, [...(untriggered.get(lineStart) ?? []), span]);
      }
    }
    const changes: Change[] = [];
    const plain: Array<[number, number]> = [];
    for (const start of [...candidates.keys()].sort((a, b) => a - b)) {
      const end = candidates.get(start)!;
      const line = text.slice(start, end);
      const json = looksLikeJson(line) ? await this.#jsonLine(line, start, untriggered.get(start) ?? []) : undefined;
      if (json) changes.push(...json);
      else plain.push(this.#window(text, start, end));
    }
    for (const [start, end] of mergeRanges(plain)) {
      const spans = await this.#plainSpans(text, start, end, untriggered);
      if (spans.length > 0) changes.push({ kind: 'plain', start, end, spans });
    }
    return changes.sort((a, b) => a.start - b.start);
  }

  /** Lines (start → end) that a trigger hits; the rest of a hit line is not searched again. */
  #candidateLines(text: string): Map<number, number> {
    const lines = new Map<number, number>();
    for (const trigger of this.#triggers) {
      trigger.lastIndex = 0;
      for (let match = trigger.exec(text); match !== null; match = trigger.exec(text)) {
        const end = lineEndAt(text, match.index);
        lines.set(lineStartAt(text, match.index), end);
        if (end >= text.length) break;
        trigger.lastIndex = end + 1;
      }
    }
    return lines;
  }

  /** A plain line with the plain lines around it, as far as CONTEXT_LINES and CONTEXT_CHARS allow. */
  #window(text: string, start: number, end: number): [number, number] {
    let from = start;
    for (let count = 0; count < CONTEXT_LINES && from > 0 && start - from < CONTEXT_CHARS; count += 1) {
      const previous = lineStartAt(text, from - 1);
      if (looksLikeJson(text.slice(previous, from - 1))) break;
      from = previous;
    }
    let to = end;
    for (let count = 0; count < CONTEXT_LINES && to < text.length && to - end < CONTEXT_CHARS; count += 1) {
      const next = lineEndAt(text, to + 1);
      if (looksLikeJson(text.slice(to + 1, next))) break;
      to = next;
    }
    return [from, to];
  }

  async #plainSpans(text: string, start: number, end: number, untriggered: Map<number, Span[]>): Promise<Span[]> {
    const unit = text.slice(start, end);
    const spans: Span[] = [];
    for (const entry of this.#triggered) if (entry.test!.test(unit)) spans.push(...(await this.#detect(entry, unit, start)));
    for (const [lineStart, found] of untriggered) if (lineStart >= start && lineStart <= end) spans.push(...found);
    return merge(outsidePlaceholders(unit, spans, start));
  }

  /**
   * A JSON line: detectors see it raw, and see decoded each string that holds an
   * escape; every span ends up inside one string, in its decoded value.
   * Undefined when the line is not JSON after all: it is then treated as plain text.
   */
  async #jsonLine(line: string, offset: number, untriggered: readonly Span[]): Promise<Change[] | undefined> {
    const literals = stringLiterals(line);
    if (!literals) return undefined;
    const active = this.#triggered.filter((entry) => entry.test!.test(line));
    const raw: Span[] = untriggered.map((span) => ({ ...span, start: span.start - offset, end: span.end - offset }));
    for (const entry of active) raw.push(...(await this.#detect(entry, line, 0)));
    const byLiteral = new Map<number, { units: LiteralUnits; value: string; spans: Span[] }>();
    const literal = (index: number) => {
      let entry = byLiteral.get(index);
      if (!entry) {
        const [start, end] = literals[index]!;
        const units = new LiteralUnits(line, start, end);
        entry = { units, value: units.decode(), spans: [] };
        byLiteral.set(index, entry);
      }
      return entry;
    };
    try {
      for (const span of raw) {
        const index = lastOverlapping(literals, span.start, span.end);
        if (index === undefined) continue;
        const [start, end] = literals[index]!;
        const entry = literal(index);
        const from = entry.units.decodedOffset(Math.max(span.start, start), false);
        const to = entry.units.decodedOffset(Math.min(span.end, end), true);
        if (to > from) entry.spans.push({ ...span, start: from, end: to });
      }
      for (const [index, [start, end]] of literals.entries()) {
        if (line.indexOf('\\', start) === -1 || line.indexOf('\\', start) >= end) continue;
        const rawText = line.slice(start, end);
        // Detectors without a trigger (team rules) look at decoded strings only of lines where they found something raw.
        const everywhere = untriggered.length > 0 ? this.#untriggered : [];
        if (everywhere.length === 0 && !this.#triggered.some((entry) => entry.test!.test(rawText))) continue;
        const entry = literal(index);
        for (const decoder of [...this.#triggered.filter((one) => one.test!.test(entry.value)), ...everywhere])
          entry.spans.push(...(await this.#detect(decoder, entry.value, 0)));
      }
    } catch {
      return undefined; // a string that does not decode: not JSON
    }
    const changes: Change[] = [];
    for (const [index, entry] of byLiteral) {
      const spans = merge(outsidePlaceholders(entry.value, entry.spans, 0));
      if (spans.length === 0) continue;
      const [start, end] = literals[index]!;
      // The quotes go too: the string is encoded again as a whole.
      changes.push({
        kind: 'string',
        start: offset + start - 1,
        end: offset + end + 1,
        units: entry.units,
        value: entry.value,
        spans,
        offset,
      });
    }
    return changes;
  }

  /** One detector over one text, its spans checked and moved by `shift`; a failure is reported once and the detector dropped. */
  async #detect(entry: TriggeredDetector, text: string, shift: number): Promise<Span[]> {
    const { detector, rank } = entry;
    if (this.#failed.has(detector)) return [];
    let found: readonly DetectedSecret[];
    try {
      found = await detector.detect(text);
    } catch (error) {
      this.#failed.add(detector);
      const coded = error as { code?: unknown; message?: unknown };
      const code = typeof coded?.code === 'string' && /^[a-z_]+$/.test(coded.code) ? coded.code : 'redact_detector_failed';
      const why = (typeof coded?.message === 'string' ? coded.message : String(error)).replace(/\.$/, '');
      this.#report({
        code,
        message:
          code === 'redact_detector_failed'
            ? `The redaction detector "${detector.id}" (${detector.source}) failed (${why}); the other detectors still ran.`
            : why.endsWith('.')
              ? why
              : `${why}.`,
      });
      return [];
    }
    const spans: Span[] = [];
    for (const secret of found ?? []) {
      const { start, end } = secret;
      if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end > text.length || end <= start) continue;
      spans.push({ start: start + shift, end: end + shift, rule: secret.rule ?? detector.id, rank });
    }
    return spans;
  }
}

/** The findings of one change, in the coordinates of the text it belongs to. */
function findingsOf(change: Change): Finding[] {
  if (change.kind === 'plain') return change.spans.map(({ rule, start, end }) => ({ rule, start, end }));
  return change.spans.map(({ rule, start, end }) => ({
    rule,
    start: change.offset + change.units.rawOffset(start),
    end: change.offset + change.units.rawOffset(end),
  }));
}

/** Spans sorted and overlapping ones joined: nothing of a secret two rules found differently is left. */
function merge(spans: Span[]): Span[] {
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
function outsidePlaceholders(text: string, spans: readonly Span[], shift: number): Span[] {
  if (spans.length === 0 || !text.includes('[REDACTED:')) return [...spans];
  const held: Array<[number, number]> = [];
  for (const match of text.matchAll(PLACEHOLDER)) held.push([match.index! + shift, match.index! + shift + match[0].length]);
  const kept: Span[] = [];
  for (const span of spans) {
    let pieces: Array<[number, number]> = [[span.start, span.end]];
    for (const [start, end] of held) {
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

/** The string literal a span belongs to: the last one it overlaps (an assignment's value follows its name). */
function lastOverlapping(literals: ReadonlyArray<[number, number]>, start: number, end: number): number | undefined {
  let low = 0;
  let high = literals.length;
  // First literal starting at or after `end`.
  while (low < high) {
    const middle = (low + high) >> 1;
    if (literals[middle]![0] < end) low = middle + 1;
    else high = middle;
  }
  const index = low - 1;
  return index >= 0 && literals[index]![1] > start ? index : undefined;
}

function mergeRanges(ranges: Array<[number, number]>): Array<[number, number]> {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [start, end] of sorted) {
    const last = merged.at(-1);
    if (last && start <= last[1] + 1) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

export function lineStartAt(text: string, index: number): number {
  return index <= 0 ? 0 : text.lastIndexOf('\n', index - 1) + 1;
}

export function lineEndAt(text: string, index: number): number {
  const end = text.indexOf('\n', index);
  return end === -1 ? text.length : end;
}
