// Triggers found by the literal text their matches start with.
//
// A trigger is a few dozen alternatives (`AKIA`, `ghp_`, `password…=`), and V8
// runs an alternation about as fast as one pass over the text per alternative:
// over an 8 MiB transcript that was ~110 ms, most of what redacting it cost
// (BENCHMARKS.md, workload 12). Nearly every alternative starts with a literal,
// so one pass reading each character once finds every place where one of those
// literals starts; only there is the alternative itself run, anchored at that
// place. An alternative whose matches may start with something else (a
// character class, `\d`) is left to a regular scan.
//
// The literals are read off the expression's source: leading literal characters
// and identity escapes, a leading `\b` (checked when the alternative runs),
// groups of alternatives (each gives its own literals) and small classes such as
// `[sr]` (each character one literal), up to the first quantifier, lookaround or
// anything else. An expression with the `i` flag (and no `u`/`v`, under which
// case folding reaches past ASCII) gives literals compared without ASCII case.

import { splitAlternatives } from './spans.js';

/** One alternative found through its literal starts: `verify` runs where one of them stands (undefined: the literal is the whole match). */
export interface AnchoredAlternative<T> {
  owner: T;
  starts: readonly string[];
  fold: boolean;
  verify?: RegExp;
}

/** Literals longer than this are cut: the rest is checked by `verify`. */
const MAX_LITERAL = 12;
/** An alternative with more literal starts than this (`[a-z]`-like expansions) is scanned as a whole instead. */
const MAX_STARTS = 64;
/** Classes of at most this many listed characters are expanded into one literal each. */
const MAX_CLASS_CHARS = 4;

/**
 * The literal starts of a pattern (an alternative of a trigger, usually), or undefined when a match may
 * start with no literal (or with one beyond ASCII). `plain` says the literal is the whole pattern, so
 * nothing needs verifying.
 */
export function literalStarts(source: string, flags: string): { starts: string[]; fold: boolean; plain: boolean } | undefined {
  const fold = flags.includes('i');
  if (fold && /[uv]/.test(flags)) return undefined;
  // As a group: sound on a whole pattern too, every alternative giving its own.
  const read = startsAt(`(?:${source})`, 0, '', fold);
  if (!read || read.length > MAX_STARTS || read.some((start) => start.length === 0)) return undefined;
  const starts = [...new Set(read)];
  const literal = plainLiteral(source);
  return { starts, fold, plain: starts.length === 1 && literal !== undefined && fold1(literal, fold) === starts[0] };
}

function startsAt(source: string, at: number, prefix: string, fold: boolean): string[] | undefined {
  const stop = () => (prefix.length > 0 ? [prefix] : undefined);
  if (prefix.length >= MAX_LITERAL || at >= source.length) return stop();
  const char = source[at]!;
  if (char === '(') {
    const close = groupEnd(source, at);
    if (close === -1 || quantified(source, close + 1) !== 'none') return stop();
    let inner = at + 1;
    if (source.startsWith('(?:', at)) inner = at + 3;
    else if (source.startsWith('(?<', at) && source[at + 3] !== '=' && source[at + 3] !== '!') inner = source.indexOf('>', at) + 1;
    else if (source[at + 1] === '?') return stop(); // a lookaround
    const rest = source.slice(close + 1);
    const found: string[] = [];
    for (const alternative of splitAlternatives(source.slice(inner, close))) {
      const more = startsAt(alternative + rest, 0, prefix, fold);
      if (!more) return undefined;
      found.push(...more);
      if (found.length > MAX_STARTS) return found;
    }
    return found;
  }
  if (char === '[') {
    const end = classEnd(source, at);
    const members = end === -1 ? undefined : listedChars(source.slice(at + 1, end));
    if (!members) return stop();
    const quantifier = quantified(source, end + 1);
    if (quantifier === 'optional') return stop();
    const found: string[] = [];
    for (const member of members) {
      const more =
        quantifier === 'repeated' ? [prefix + fold1(member, fold)] : startsAt(source, end + 1, prefix + fold1(member, fold), fold);
      if (!more) return undefined;
      found.push(...more);
      if (found.length > MAX_STARTS) return found;
    }
    return found;
  }
  let literal: string;
  let width = 1;
  if (char === '\\') {
    const next = source[at + 1];
    if (next === 'b' && prefix === '') return startsAt(source, at + 2, prefix, fold);
    if (next === undefined || /[A-Za-z0-9]/.test(next)) return stop();
    literal = next;
    width = 2;
  } else if ('^$.|?*+{}()[]'.includes(char)) return stop();
  else literal = char;
  // Beyond ASCII, `i` folds by other rules (the Kelvin sign is no `k`), and the table holds ASCII only.
  if (!PRINTABLE_ASCII.test(literal)) return stop();
  const quantifier = quantified(source, at + width);
  if (quantifier === 'optional') return stop();
  if (quantifier === 'repeated') return [prefix + fold1(literal, fold)];
  return startsAt(source, at + width, prefix + fold1(literal, fold), fold);
}

function fold1(char: string, fold: boolean): string {
  return fold ? char.toLowerCase() : char;
}

/** Whether a quantifier follows: one that allows none (`?`, `*`, `{0,…}`), one that repeats (`+`, `{n,…}`), or none. */
function quantified(source: string, at: number): 'none' | 'optional' | 'repeated' {
  const char = source[at];
  if (char === '?' || char === '*') return 'optional';
  if (char === '+') return 'repeated';
  if (char === '{') {
    const bounds = /^\{(\d+)(?:,\d*)?\}/.exec(source.slice(at));
    if (bounds) return Number(bounds[1]) === 0 ? 'optional' : 'repeated';
  }
  return 'none';
}

/** The index of the `)` closing the group opened at `open`, or -1. */
function groupEnd(source: string, open: number): number {
  let depth = 0;
  for (let index = open; index < source.length; index += 1) {
    const char = source[index];
    if (char === '\\') index += 1;
    else if (char === '[') {
      index = classEnd(source, index);
      if (index === -1) return -1;
    } else if (char === '(') depth += 1;
    else if (char === ')' && --depth === 0) return index;
  }
  return -1;
}

/** The index of the `]` closing the class opened at `open`, or -1. */
function classEnd(source: string, open: number): number {
  for (let index = open + 1; index < source.length; index += 1) {
    if (source[index] === '\\') index += 1;
    else if (source[index] === ']') return index;
  }
  return -1;
}

const PRINTABLE_ASCII = /^[\x20-\x7e]$/;

/** A class's members when it only lists a few plain ASCII characters (no range, escape or negation). */
function listedChars(body: string): string[] | undefined {
  if (body.length === 0 || body.length > MAX_CLASS_CHARS || /[\\^\-[\]]|[^\x20-\x7e]/.test(body)) return undefined;
  return [...new Set(body)];
}

/** The text an alternative matches when it is nothing but literal characters (in non-capturing groups), or undefined. */
function plainLiteral(source: string): string | undefined {
  let body = source;
  while (body.startsWith('(?:') && groupEnd(body, 0) === body.length - 1) body = body.slice(3, -1);
  let text = '';
  for (let index = 0; index < body.length; index += 1) {
    const char = body[index]!;
    if (char === '\\') {
      const next = body[index + 1];
      if (next === undefined || /[A-Za-z0-9]/.test(next)) return undefined;
      text += next;
      index += 1;
    } else if ('^$.|?*+{}()[]'.includes(char)) return undefined;
    else text += char;
  }
  return text.length > 0 ? text : undefined;
}

interface Entry<T> {
  owner: T;
  /** The literal (lower case when folded), its character codes. */
  codes: number[];
  fold: boolean;
  verify?: RegExp;
}

/** ASCII only: the table is indexed by two 7-bit characters. */
const PAIRS = 128 * 128;

/**
 * Every place in a text where one of many alternatives matches, in one pass:
 * each character and the next one index a table of the literals starting with
 * them, which are compared in full there, and the alternative verified.
 */
export class AnchorScanner<T> {
  /** Literals by their first two characters (`a << 7 | b`), and one-character literals by theirs. */
  readonly #byPair = new Map<number, Array<Entry<T>>>();
  readonly #bySingle = new Map<number, Array<Entry<T>>>();
  #table?: Table<T>;

  get size(): number {
    return this.#byPair.size + this.#bySingle.size;
  }

  add(alternative: AnchoredAlternative<T>): void {
    this.#table = undefined;
    for (const start of alternative.starts) {
      const entry: Entry<T> = {
        owner: alternative.owner,
        codes: [...start].map((char) => char.charCodeAt(0)),
        fold: alternative.fold,
        verify: alternative.verify,
      };
      const [first, second] = entry.codes;
      for (const a of variants(first!, entry.fold)) {
        if (second === undefined) listIn(this.#bySingle, a).push(entry);
        else for (const b of variants(second, entry.fold)) listIn(this.#byPair, (a << 7) | b).push(entry);
      }
    }
  }

  /**
   * Each place an alternative matches, in the order of the text (an owner may hit one place once per
   * literal); at most `perLine` of an owner's on one line, so a long line full of hits holds few.
   */
  scan(text: string, perLine = NO_CAP): Array<AnchorHit<T>> {
    const found: Found<T> = { hits: [], perLine, lineStart: 0, lineEnd: -1, counts: new Map() };
    scanInto(text, (this.#table ??= this.#build()), found);
    return found.hits;
  }

  /**
   * The table the scan reads: for each pair of characters, the slot of the literals it may start (a
   * one-character literal is in every slot its character starts), and the third characters those literals
   * allow, 128 bits in four words (all, when one of them is shorter): common pairs (`se`, `to`, `ke`) stand
   * nearly everywhere in prose, their literals' first three characters far less often.
   */
  #build(): Table<T> {
    const keys = new Set([...this.#byPair.keys()]);
    for (const a of this.#bySingle.keys()) for (let b = 0; b < 0x80; b += 1) keys.add((a << 7) | b);
    if (keys.size + 1 > 0xffff) throw new Error('too many trigger literals');
    const slots = new Uint16Array(PAIRS);
    const lists: Array<Array<Entry<T>>> = [[]];
    const thirds = new Int32Array((keys.size + 1) * 4);
    for (const key of keys) {
      const entries = [...(this.#bySingle.get(key >> 7) ?? []), ...(this.#byPair.get(key) ?? [])];
      const slot = lists.push(entries) - 1;
      slots[key] = slot;
      for (const { codes, fold } of entries) {
        const third = codes[2];
        if (third === undefined) thirds.fill(-1, slot * 4, slot * 4 + 4);
        else for (const code of variants(third, fold)) thirds[(slot << 2) | (code >> 5)]! |= 1 << (code & 31);
      }
    }
    return { slots, lists, thirds };
  }
}

/**
 * The scan's loop, alone in its function, which ends where the loop ends. V8 compiles a long loop while
 * its first call runs (on-stack replacement) and reuses that code each time a later call enters the
 * loop; code after the loop has not run yet when it is compiled, so that code would leave at every later
 * call (a "deopt" per call: 30-40 ms over an 8 MiB transcript, BENCHMARKS.md, workload 12). No callback
 * either: one called from this loop with a new closure each time would throw its compiled code away.
 */
function scanInto<T>(text: string, { slots, lists, thirds }: Table<T>, found: Found<T>): void {
  const last = text.length - 1;
  // The last character is read in the loop too: its next one as column 0, its third as none.
  for (let index = 0, current = text.charCodeAt(0); index <= last; index += 1) {
    const next = index < last ? text.charCodeAt(index + 1) : 0;
    if (current < 0x80) {
      // A character beyond ASCII after it: column 0, where only one-character literals are.
      const slot = slots[(current << 7) | (next < 0x80 ? next : 0)]!;
      if (slot !== 0) {
        // None (the text's end): bit 0 of word 0, which only a slot that takes any third character has.
        const third = index + 2 <= last ? text.charCodeAt(index + 2) : 0;
        if (third >= 0x80 || (thirds[(slot << 2) | (third >> 5)]! & (1 << (third & 31))) !== 0) check(lists[slot]!, text, index, found);
      }
    }
    current = next;
  }
}

interface Table<T> {
  slots: Uint16Array;
  /** Slot k (from 1): the entries it names. */
  lists: Array<Array<Entry<T>>>;
  thirds: Int32Array;
}

function listIn<T>(map: Map<number, Array<Entry<T>>>, key: number): Array<Entry<T>> {
  let list = map.get(key);
  if (!list) map.set(key, (list = []));
  return list;
}

export interface AnchorHit<T> {
  owner: T;
  index: number;
}

/** No cap on the hits of a line: an integer, like any cap, so the scan's state keeps one shape. */
const NO_CAP = 0x7fffffff;

/** What a scan found so far, and how many of each owner's hits its current line holds. */
interface Found<T> {
  hits: Array<AnchorHit<T>>;
  perLine: number;
  /** The line `counts` are of, found when a hit first falls in it (the scan's loop looks for no line breaks). */
  lineStart: number;
  lineEnd: number;
  counts: Map<T, number>;
}

/** The entries of one slot that match at `index`: the literal in full, then the alternative. */
function check<T>(entries: ReadonlyArray<Entry<T>>, text: string, index: number, found: Found<T>): void {
  for (const entry of entries) {
    const codes = entry.codes;
    let k = 2;
    if (entry.fold) {
      for (; k < codes.length; k += 1) {
        const code = text.charCodeAt(index + k);
        if ((code >= 0x41 && code <= 0x5a ? code + 0x20 : code) !== codes[k]) break;
      }
    } else for (; k < codes.length && text.charCodeAt(index + k) === codes[k]; k += 1);
    if (k < codes.length) continue;
    const verify = entry.verify;
    if (verify) {
      verify.lastIndex = index;
      if (!verify.test(text)) continue;
    }
    if (found.perLine !== NO_CAP) {
      if (index < found.lineStart || index > found.lineEnd) {
        found.lineStart = index === 0 ? 0 : text.lastIndexOf('\n', index - 1) + 1;
        const end = text.indexOf('\n', index);
        found.lineEnd = end === -1 ? text.length : end;
        found.counts.clear();
      }
      const count = (found.counts.get(entry.owner) ?? 0) + 1;
      if (count > found.perLine) continue;
      found.counts.set(entry.owner, count);
    }
    found.hits.push({ owner: entry.owner, index });
  }
}

/** A character's codes as a folded literal may meet it: both cases of an ASCII letter. */
function variants(code: number, fold: boolean): number[] {
  if (!fold || code < 0x61 || code > 0x7a) return [code];
  return [code, code - 0x20];
}
