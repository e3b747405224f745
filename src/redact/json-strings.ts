// A transcript line is JSON, and the secrets in it sit inside its strings, some
// behind escapes (`\"`, `\n`, `\u002f`). These helpers find a line's string
// literals and map offsets between a literal's raw text and its decoded value,
// so that a secret can be replaced inside one string while every other byte of
// the line stays as it was.

/** Whether a line looks like a JSON object or array (transcripts are JSON lines). */
export function looksLikeJson(line: string): boolean {
  const first = line.search(/\S/);
  if (first === -1) return false;
  const open = line.charCodeAt(first);
  if (open !== 0x7b && open !== 0x5b) return false;
  const trimmed = line.trimEnd();
  const close = trimmed.charCodeAt(trimmed.length - 1);
  return close === 0x7d || close === 0x5d;
}

/** `[start, end)` of each string literal's content (quotes excluded); undefined when one is never closed. */
export function stringLiterals(line: string): Array<[number, number]> | undefined {
  const spans: Array<[number, number]> = [];
  let position = 0;
  for (;;) {
    const open = line.indexOf('"', position);
    if (open === -1) return spans;
    let close = open + 1;
    for (;;) {
      close = line.indexOf('"', close);
      if (close === -1) return undefined;
      let backslashes = 0;
      for (let index = close - 1; index > open && line.charCodeAt(index) === 0x5c; index -= 1) backslashes += 1;
      if (backslashes % 2 === 0) break;
      close += 1;
    }
    spans.push([open + 1, close]);
    position = close + 1;
  }
}

/**
 * A literal's raw content as units: a plain character or one escape sequence,
 * each of which decodes to exactly one UTF-16 code unit. `starts[k]` is where the
 * k-th unit begins, so decoded offset k and raw offset starts[k] name the same place.
 */
export class LiteralUnits {
  #starts?: number[];

  constructor(
    readonly line: string,
    readonly start: number,
    readonly end: number,
  ) {}

  /** Made when an offset is first mapped: most strings decoded to be looked at hold nothing and never need it. */
  get starts(): number[] {
    if (this.#starts) return this.#starts;
    const starts: number[] = [];
    for (let index = this.start; index < this.end;) {
      starts.push(index);
      index += this.line.charCodeAt(index) === 0x5c ? (this.line.charCodeAt(index + 1) === 0x75 ? 6 : 2) : 1;
    }
    return (this.#starts = starts);
  }

  /** The decoded value; throws when the raw text is not a valid JSON string. */
  decode(): string {
    // The literal with its own quotes, a slice of the line: no copy of it to parse.
    return JSON.parse(this.line.slice(this.start - 1, this.end + 1)) as string;
  }

  /** The raw offset of decoded offset `k` (k may equal the decoded length: the literal's end). */
  rawOffset(k: number): number {
    const starts = this.starts;
    return k >= starts.length ? this.end : starts[k]!;
  }

  /** The decoded offset of the unit holding raw offset `raw`, or of the next one when `after` (so a span keeps whole escapes). */
  decodedOffset(raw: number, after: boolean): number {
    const starts = this.starts;
    let low = 0;
    let high = starts.length;
    // First unit starting past `raw`.
    while (low < high) {
      const middle = (low + high) >> 1;
      if (starts[middle]! <= raw) low = middle + 1;
      else high = middle;
    }
    const holding = low - 1;
    if (holding < 0) return 0;
    return after && starts[holding] !== raw ? holding + 1 : holding;
  }
}

/** The string literal a span belongs to: the last one it overlaps (an assignment's value follows its name). */
export function lastOverlapping(literals: ReadonlyArray<[number, number]>, start: number, end: number): number | undefined {
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

/**
 * The decoded offsets of raw offsets in the string starting at `start` (each escape before one decodes to one
 * character), in the order given; one walk over the escapes serves them all.
 */
export function decodedIndexes(line: string, start: number, raws: readonly number[]): number[] {
  const order = raws.map((_, index) => index).sort((a, b) => raws[a]! - raws[b]!);
  const decoded = new Array<number>(raws.length);
  /** Characters the escapes before `escape` saved. */
  let saved = 0;
  let escape = line.indexOf('\\', start);
  for (const index of order) {
    const raw = raws[index]!;
    let inside = false;
    while (escape !== -1 && escape < raw) {
      const length = line.charCodeAt(escape + 1) === 0x75 ? 6 : 2;
      if (escape + length > raw) {
        // The offset falls inside this escape: it is the escape's own character.
        inside = true;
        decoded[index] = escape - start - saved;
        break;
      }
      saved += length - 1;
      escape = line.indexOf('\\', escape + length);
    }
    if (!inside) decoded[index] = raw - start - saved;
  }
  return decoded;
}

/** The name of the member whose value is string `index` (`"name": "value"`), when it is one. */
export function memberName(line: string, literals: ReadonlyArray<[number, number]>, index: number): string | undefined {
  if (index === 0) return undefined;
  const [previousStart, previousEnd] = literals[index - 1]!;
  const between = line.slice(previousEnd + 1, literals[index]![0] - 1);
  if (!/^\s*:\s*$/.test(between) || previousEnd - previousStart > 80) return undefined;
  return line.slice(previousStart, previousEnd);
}

/**
 * The line without the contents of the given strings (their quotes stay, so the
 * JSON still reads), and where an offset of it lies in the line. The strings
 * were looked at decoded; the rest (names, short values) is short.
 */
export function withoutStrings(line: string, spans: ReadonlyArray<[number, number]>): { text: string; lineOffset(offset: number): number } {
  if (spans.length === 0) return { text: line, lineOffset: (offset) => offset };
  const parts: string[] = [];
  /** Offsets in the text where a removed stretch was, and how much was removed up to there. */
  const cuts: Array<[number, number]> = [];
  let position = 0;
  let removed = 0;
  for (const [start, end] of spans) {
    parts.push(line.slice(position, start));
    removed += end - start;
    cuts.push([start - (removed - (end - start)), removed]);
    position = end;
  }
  parts.push(line.slice(position));
  return {
    text: parts.join(''),
    lineOffset(offset) {
      let shift = 0;
      for (const [at, total] of cuts) if (offset > at) shift = total;
      return offset + shift;
    },
  };
}

/**
 * Where each line starts that holds an escape of a printable ASCII character (`\/`, `\u0067`), which
 * hides a trigger's literal from the raw line: `postgres:\/\/app:…@`, `\u0067hp_…`. JSON.stringify never
 * writes one (the character itself does), other encoders and anyone hiding a secret from a scan do.
 */
export function hiddenAsciiLines(text: string): number[] {
  const starts = new Set<number>();
  /** Where the line of `index` starts; the search goes on from its end. */
  const take = (index: number): number => {
    starts.add(text.lastIndexOf('\n', index) + 1);
    const end = text.indexOf('\n', index);
    return end === -1 ? text.length : end;
  };
  for (let index = text.indexOf('\\/'); index !== -1; index = text.indexOf('\\/', index + 1)) index = take(index);
  for (let index = text.indexOf('\\u00'); index !== -1; index = text.indexOf('\\u00', index + 1))
    if (HIDDEN_ASCII.test(text.slice(index + 4, index + 6))) index = take(index);
  return [...starts];
}

/** A line with those escapes read (`\/`, `\\/` and `\u0067` as `/` and `g`), to see which triggers they hid. */
export function unescapedAscii(line: string): string {
  return line.replace(/\\+(?:\/|u00([0-9a-fA-F]{2}))/g, (escape, hex?: string) =>
    hex === undefined ? '/' : HIDDEN_ASCII.test(hex) ? String.fromCharCode(Number.parseInt(hex, 16)) : escape,
  );
}

/**
 * `\u0021` to `\u007e`. Go's encoder writes `<`, `>` and `&` so for HTML's sake: a line of such output is
 * scanned once more, and read whole only by a detector its unescaped text triggers (`<password>…`).
 */
const HIDDEN_ASCII = /^(?!7f)(?:2[1-9a-f]|[3-7][0-9a-f])$/i;
