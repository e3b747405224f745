// The one redaction engine: capture, push, `tracer redact` and the service's
// gate all run text through a Redactor made of the detectors the plugins added.
//
// How it stays cheap on a transcript (megabytes of JSON lines, hardly ever a
// secret): the triggers' alternatives are found in one pass over the text, by
// the literals they start with (anchors.ts); only lines they hit go any further. A JSON line is
// then given to the detectors whole, and each of its strings that holds escapes
// decoded on its own as well (a `\"` hides a quoted value from a pattern run on
// the raw line); a secret is replaced inside its own string, which is encoded
// again, so every other byte of the line stays as it was. A plain-text line is
// looked at with the lines around it (a PEM key spans many).
//
// Nothing a detector finds inside a placeholder counts, and a redacted line is
// looked at again, so redacting redacted text changes nothing.
import { createHash } from 'node:crypto';
import { AnchorScanner, literalStarts } from './anchors.js';
import {
  decodedIndexes,
  hiddenAsciiLines,
  lastOverlapping,
  LiteralUnits,
  looksLikeJson,
  memberName,
  stringLiterals,
  unescapedAscii,
  withoutStrings,
} from './json-strings.js';
import { append, lineEndAt, lineStartAt, merge, outsidePlaceholders, topLevelAlternatives, windows, type Span } from './spans.js';
import { kindOf, placeholder, type Fingerprint } from './placeholder.js';
import { TextLines } from './text-lines.js';
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

interface TriggeredDetector {
  detector: RedactionDetector;
  rank: number;
  /** The trigger's alternatives that start with no literal, each a global expression (the whole trigger when it holds a backreference). */
  scans: RegExp[];
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
  /** Every trigger alternative that starts with a literal, found in one pass. */
  readonly #anchors = new AnchorScanner<TriggeredDetector>();
  readonly #fingerprint?: Fingerprint;
  readonly #report: (problem: RedactionProblem) => void;
  readonly #failed = new Set<RedactionDetector>();

  constructor(detectors: readonly RedactionDetector[], options: RedactorOptions = {}) {
    this.detectors = detectors;
    this.#fingerprint = options.fingerprint;
    this.#report = options.report ?? (() => undefined);
    detectors.forEach((detector, index) => {
      const rank = (detector.fallback ? detectors.length : 0) + index;
      const trigger = detector.trigger;
      if (!trigger) return this.#untriggered.push({ detector, rank, scans: [] });
      const flags = trigger.flags.replace(/[gy]/g, '');
      const entry: TriggeredDetector = { detector, rank, scans: [] };
      this.#triggered.push(entry);
      // A backreference names its group by number or name: cut into alternatives, it would name another one.
      if (/\\[1-9]|\\k</.test(trigger.source)) return entry.scans.push(new RegExp(trigger.source, `${flags}g`));
      // Alternatives that start with literals are found by the one anchored pass; each of the rest is scanned
      // for on its own (together, one's match could hide another's: a scan reports matches that do not overlap).
      for (const alternative of topLevelAlternatives(trigger.source)) {
        const literal = literalStarts(alternative, flags);
        if (!literal) entry.scans.push(new RegExp(alternative, `${flags}g`));
        else
          this.#anchors.add({
            owner: entry,
            starts: literal.starts,
            fold: literal.fold,
            verify: literal.plain ? undefined : new RegExp(alternative, `${flags}y`),
          });
      }
    });
  }

  /** The text with every secret replaced by its placeholder, and what was found (offsets in `text`). */
  async redact(text: string): Promise<RedactedText> {
    if (!this.#fingerprint) throw new Error('Redactor.redact needs a fingerprint');
    return this.#redact(text, 0);
  }

  /** The placeholder of one secret found under `rule`: what `redact` puts in its place. */
  placeholderOf(rule: string, secret: string): string {
    if (!this.#fingerprint) throw new Error('Redactor.placeholderOf needs a fingerprint');
    return placeholder(kindOf(rule), this.#fingerprint(secret));
  }

  /** What would be redacted, without changing anything. */
  async find(text: string): Promise<Finding[]> {
    const changes = await this.#changes(text);
    return changes.flatMap((change) => findingsOf(change));
  }

  async close(): Promise<void> {
    for (const detector of this.detectors) await detector.close?.();
  }

  /**
   * What this redactor does, as a digest: its detectors and their rules, and its
   * fingerprint's key (never the key itself). Two redactors with the same
   * signature turn the same text into the same bytes, so a redaction may resume
   * where another stopped.
   */
  signature(version: string): string {
    const rules = this.detectors.map((detector) => [
      detector.id,
      detector.source,
      (detector.rules ?? []).map((rule) => [rule.id, rule.description]),
    ]);
    const key = this.#fingerprint?.('tracer redaction signature') ?? '';
    return createHash('sha256').update(JSON.stringify({ version, rules, key })).digest('hex');
  }

  async #redact(text: string, depth: number): Promise<RedactedText> {
    const changes = await this.#changes(text);
    if (changes.length === 0) return { text, findings: [] };
    const findings: Finding[] = [];
    const parts: string[] = [];
    let position = 0;
    for (const change of changes) {
      append(findings, findingsOf(change));
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
    const source = change.kind === 'plain' ? text.slice(change.start, change.end) : change.value;
    const base = change.kind === 'plain' ? change.start : 0;
    let out = '';
    let position = 0;
    for (const span of change.spans) {
      const start = span.start - base;
      const end = span.end - base;
      out += source.slice(position, start) + this.placeholderOf(span.rule, source.slice(start, end));
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
        if (!candidates.has(lineStart))
          candidates.set(lineStart, { end: lineEndAt(text, span.start), active: new Set(), hits: [], counts: new Map() });
        const spans = untriggered.get(lineStart);
        if (spans) spans.push(span);
        else untriggered.set(lineStart, [span]);
      }
    }
    const changes: Change[] = [];
    const plain: Window[] = [];
    let lines: TextLines | undefined;
    let last: Reach | undefined;
    for (const start of [...candidates.keys()].sort((a, b) => a - b)) {
      const candidate = candidates.get(start)!;
      const { end, active } = candidate;
      const line = text.slice(start, end);
      const json = looksLikeJson(line) ? await this.#jsonLine(line, start, untriggered.get(start) ?? [], candidate) : undefined;
      if (json) append(changes, json);
      else {
        lines ??= new TextLines(text);
        last = this.#window(lines, lines.lineOf(start), last);
        plain.push({ range: [last.from, last.to], active });
      }
    }
    for (const {
      range: [start, end],
      active,
    } of mergeWindows(plain)) {
      const spans = await this.#plainSpans(text, start, end, untriggered, active);
      if (spans.length > 0) changes.push({ kind: 'plain', start, end, spans });
    }
    return changes.sort((a, b) => a.start - b.start);
  }

  /**
   * Lines a trigger hits: where they end, whose triggers hit, and where (up to
   * HITS_PER_LINE a detector, then the line counts as hit all over), so that a
   * JSON line's strings are decoded only where a trigger hit them.
   */
  #candidateLines(text: string): Map<number, CandidateLine> {
    const lines = new Map<number, CandidateLine>();
    // The line of the last hit: hits come in order, mostly many on one line, which needs no search for where it starts.
    let lineStart = -1;
    let lineEnd = -1;
    let line: CandidateLine | undefined;
    /** Records a hit (`anywhere`: counts the line as hit all over); true once the detector's hits on that line are past counting. */
    const record = (entry: TriggeredDetector, index: number, anywhere = false): boolean => {
      if (!line || index < lineStart || index > lineEnd) {
        lineStart = lineStartAt(text, index);
        lineEnd = lineEndAt(text, index);
        line = lines.get(lineStart);
        if (!line) lines.set(lineStart, (line = { end: lineEnd, active: new Set(), hits: [], counts: new Map() }));
      }
      line.active.add(entry);
      const count = anywhere ? Math.max(HITS_PER_LINE, line.counts.get(entry) ?? 0) + 1 : (line.counts.get(entry) ?? 0) + 1;
      line.counts.set(entry, count);
      if (count <= HITS_PER_LINE) line.hits.push({ at: index - lineStart, entry });
      else if (count === HITS_PER_LINE + 1) line.hits.push({ at: -1, entry });
      return count > HITS_PER_LINE;
    };
    if (this.#anchors.size > 0) for (const { owner, index } of this.#anchors.scan(text, HITS_PER_LINE + 1)) record(owner, index);
    for (const entry of this.#triggered) {
      for (const scan of entry.scans) {
        scan.lastIndex = 0;
        for (let match = scan.exec(text); match !== null; match = scan.exec(text)) {
          if (record(entry, match.index)) {
            // Hit too often to list: the rest of the line need not be scanned.
            if (lineEnd >= text.length) break;
            scan.lastIndex = lineEnd + 1;
          } else if (match[0].length === 0) scan.lastIndex += 1;
        }
      }
    }
    // A line where an escape may hide a trigger's literal: read unescaped, each detector it then hits looks at all of it.
    for (const index of hiddenAsciiLines(text)) {
      const unescaped = unescapedAscii(text.slice(lineStartAt(text, index), lineEndAt(text, index)));
      for (const entry of this.#hitBy(unescaped)) record(entry, index, true);
    }
    return lines;
  }

  /** The detectors whose triggers match somewhere in a text. */
  #hitBy(text: string): Set<TriggeredDetector> {
    const hit = new Set<TriggeredDetector>();
    if (this.#anchors.size > 0) for (const { owner } of this.#anchors.scan(text, 1)) hit.add(owner);
    for (const entry of this.#triggered) {
      if (hit.has(entry)) continue;
      for (const scan of entry.scans) {
        scan.lastIndex = 0;
        if (scan.test(text)) hit.add(entry);
      }
    }
    return hit;
  }

  /** A plain line with the plain lines around it, as far as CONTEXT_LINES and CONTEXT_CHARS allow. */
  #window(lines: TextLines, line: number, last: Reach | undefined): Reach {
    const start = lines.starts[line]!;
    const end = lines.end(line);
    // Lines come in order: one the last window reaches joins it, which already reaches as far back as this one would.
    let from = start;
    if (!last || start > last.to + 1)
      for (let k = line; k > 0 && line - k < CONTEXT_LINES && start - from < CONTEXT_CHARS && !lines.isJson(k - 1); k -= 1)
        from = lines.starts[k - 1]!;
    // ...and as far forwards as it went: from there, what is left of this line's lines.
    let toLine = last && last.toLine > line ? last.toLine : line;
    let to = toLine === line ? end : last!.to;
    while (toLine + 1 < lines.count && toLine - line < CONTEXT_LINES && to - end < CONTEXT_CHARS && !lines.isJson(toLine + 1)) {
      toLine += 1;
      to = lines.end(toLine);
    }
    return { from, to, toLine };
  }

  async #plainSpans(
    text: string,
    start: number,
    end: number,
    untriggered: Map<number, Span[]>,
    active: ReadonlySet<TriggeredDetector>,
  ): Promise<Span[]> {
    const unit = text.slice(start, end);
    const spans: Span[] = [];
    for (const entry of this.#triggered) if (active.has(entry)) append(spans, await this.#detect(entry, unit, start));
    for (const [lineStart, found] of untriggered) if (lineStart >= start && lineStart <= end) append(spans, found);
    return merge(outsidePlaceholders(unit, spans, start));
  }

  /**
   * A JSON line. A string holding an escape that a trigger hit is decoded and
   * given to the detectors whose triggers hit it, with its member's name in front
   * (`password: …`), so a quoted value behind `\"` is seen as it reads; the rest
   * of the line is given to them raw, with those strings blanked (same length,
   * so offsets hold), which also catches a member whose value needs no decoding.
   * Every span ends up inside one string, in its decoded value. Undefined when
   * the line is not JSON after all: it is then treated as plain text.
   */
  async #jsonLine(line: string, offset: number, untriggered: readonly Span[], candidate: CandidateLine): Promise<Change[] | undefined> {
    // Planned and applied by plain functions, the detectors awaited in a loop of their own: an async function
    // holding all of it took the optimizing compiler 80-126 ms, on every first Stop (BENCHMARKS.md, workload 12).
    const plan = this.#jsonPlan(line, candidate, untriggered.length > 0);
    if (!plan) return undefined;
    const found: Span[][] = [];
    for (const task of plan.tasks) found.push(await this.#detect(task.detector, task.text, task.shift));
    return jsonChanges(line, offset, untriggered, plan, found);
  }

  /** The detector calls over one decoded string: around each trigger's hits in it, and all of it for `everywhere`. */
  #stringTasks(
    plan: JsonPlan,
    line: string,
    index: number,
    entry: DecodedLiteral,
    hitting: Map<TriggeredDetector, number[] | undefined>,
    everywhere: readonly TriggeredDetector[],
  ): void {
    const name = memberName(line, plan.literals, index);
    for (const decoder of this.#triggered) {
      if (!hitting.has(decoder)) continue;
      for (const [from, to] of windows(entry.value, hitting.get(decoder), decoder.detector.reach)) {
        // The member's name in front of the value's start (`password: …`), so an assignment reads whole.
        const prefix = from === 0 && name !== undefined ? `${name}: ` : '';
        plan.tasks.push({
          detector: decoder,
          text: prefix + entry.value.slice(from, to),
          shift: from - prefix.length,
          literal: index,
          from,
        });
      }
    }
    for (const decoder of everywhere) plan.tasks.push({ detector: decoder, text: entry.value, shift: 0, literal: index, from: 0 });
  }

  /** What to give the detectors of a JSON line (see #jsonLine); undefined when it is not JSON after all. */
  #jsonPlan(line: string, candidate: CandidateLine, foundRaw: boolean): JsonPlan | undefined {
    const literals = stringLiterals(line);
    if (!literals) return undefined;
    const plan: JsonPlan = { literals, decoded: new Map(), tasks: [], rest: withoutStrings(line, []) };
    // Detectors without a trigger (team rules) look at decoded strings only of lines where they found something raw.
    const everywhere = foundRaw ? this.#untriggered : [];
    const blanked: Array<[number, number]> = [];
    // The first backslash at or after the literal looked at: found once for all of them, not once for each.
    let escape = line.indexOf('\\');
    for (const [index, [start, end]] of literals.entries()) {
      if (escape !== -1 && escape < start) escape = line.indexOf('\\', start);
      if (escape === -1 || escape >= end) continue;
      const hitting = hitsInString(line, start, end, candidate);
      if (hitting.size === 0 && everywhere.length === 0) continue;
      const entry = decodedLiteral(plan, line, index);
      if (!entry) return undefined;
      this.#stringTasks(plan, line, index, entry, hitting, everywhere);
      blanked.push([start, end]);
    }
    plan.rest = withoutStrings(line, blanked);
    for (const entry of this.#triggered)
      if (candidate.active.has(entry)) plan.tasks.push({ detector: entry, text: plan.rest.text, shift: 0, literal: -1, from: 0 });
    return plan;
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

/** A JSON line's detector calls: each over a string's decoded value (`literal`) or over the rest of the line (-1). */
interface JsonPlan {
  literals: Array<[number, number]>;
  decoded: Map<number, DecodedLiteral>;
  tasks: Array<{ detector: TriggeredDetector; text: string; shift: number; literal: number; from: number }>;
  rest: ReturnType<typeof withoutStrings>;
}

interface DecodedLiteral {
  units: LiteralUnits;
  value: string;
  spans: Span[];
}

/** Where in the decoded string `[start, end)` of the line each detector's trigger hit it (undefined: anywhere). */
function hitsInString(line: string, start: number, end: number, candidate: CandidateLine): Map<TriggeredDetector, number[] | undefined> {
  const hitting = new Map<TriggeredDetector, number[] | undefined>();
  for (const hit of candidate.hits) {
    if (hit.at !== -1 && (hit.at < start || hit.at >= end)) continue;
    const known = hitting.get(hit.entry);
    if (hit.at === -1 || (hitting.has(hit.entry) && known === undefined)) hitting.set(hit.entry, undefined);
    else if (known) known.push(hit.at);
    else hitting.set(hit.entry, [hit.at]);
  }
  for (const [entry, raws] of hitting) if (raws) hitting.set(entry, decodedIndexes(line, start, raws));
  return hitting;
}

/** A string of the line, decoded once; undefined when it does not decode (the line is then no JSON). */
function decodedLiteral(plan: JsonPlan, line: string, index: number): DecodedLiteral | undefined {
  let entry = plan.decoded.get(index);
  if (!entry) {
    const [start, end] = plan.literals[index]!;
    const units = new LiteralUnits(line, start, end);
    try {
      entry = { units, value: units.decode(), spans: [] };
    } catch {
      return undefined;
    }
    plan.decoded.set(index, entry);
  }
  return entry;
}

/**
 * The changes of a JSON line from what its detectors found (`found[k]` for `plan.tasks[k]`): every span
 * ends up inside one string, in its decoded value; undefined when a string it falls in does not decode.
 */
function jsonChanges(line: string, offset: number, untriggered: readonly Span[], plan: JsonPlan, found: Span[][]): Change[] | undefined {
  const raw: Span[] = untriggered.map((span) => ({ ...span, start: span.start - offset, end: span.end - offset }));
  for (const [k, task] of plan.tasks.entries()) {
    if (task.literal === -1) {
      for (const span of found[k]!) raw.push({ ...span, start: plan.rest.lineOffset(span.start), end: plan.rest.lineOffset(span.end) });
      continue;
    }
    const entry = plan.decoded.get(task.literal)!;
    for (const span of found[k]!) if (span.end > task.from) entry.spans.push({ ...span, start: Math.max(task.from, span.start) });
  }
  for (const span of raw) {
    const index = lastOverlapping(plan.literals, span.start, span.end);
    if (index === undefined) continue;
    const [start, end] = plan.literals[index]!;
    const entry = decodedLiteral(plan, line, index);
    if (!entry) return undefined;
    const from = entry.units.decodedOffset(Math.max(span.start, start), false);
    const to = entry.units.decodedOffset(Math.min(span.end, end), true);
    if (to > from) entry.spans.push({ ...span, start: from, end: to });
  }
  const changes: Change[] = [];
  for (const [index, entry] of plan.decoded) {
    const spans = merge(outsidePlaceholders(entry.value, entry.spans, 0));
    if (spans.length === 0) continue;
    const [start, end] = plan.literals[index]!;
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

/** The findings of one change, in the coordinates of the text it belongs to. */
function findingsOf(change: Change): Finding[] {
  if (change.kind === 'plain') return change.spans.map(({ rule, start, end }) => ({ rule, start, end }));
  return change.spans.map(({ rule, start, end }) => ({
    rule,
    start: change.offset + change.units.rawOffset(start),
    end: change.offset + change.units.rawOffset(end),
  }));
}

/** A line a trigger hit; `at` of a hit is its offset in the line, -1 for "anywhere" (a line hit too often to list). */
interface CandidateLine {
  end: number;
  active: Set<TriggeredDetector>;
  hits: Array<{ at: number; entry: TriggeredDetector }>;
  /** Hits recorded for each detector. */
  counts: Map<TriggeredDetector, number>;
}

/** Hits of one detector listed for one line; past them the line counts as hit all over. */
const HITS_PER_LINE = 64;

/** A plain line's window: `[from, to)` of the text, and the line `to` ends. */
interface Reach {
  from: number;
  to: number;
  toLine: number;
}

/** A stretch of plain text to give to the detectors whose triggers hit in it. */
interface Window {
  range: [number, number];
  active: Set<TriggeredDetector>;
}

function mergeWindows(windows: readonly Window[]): Window[] {
  const sorted = [...windows].sort((a, b) => a.range[0] - b.range[0]);
  const merged: Window[] = [];
  for (const { range, active } of sorted) {
    const last = merged.at(-1);
    if (last && range[0] <= last.range[1] + 1) {
      last.range[1] = Math.max(last.range[1], range[1]);
      for (const entry of active) last.active.add(entry);
    } else merged.push({ range: [range[0], range[1]], active: new Set(active) });
  }
  return merged;
}
