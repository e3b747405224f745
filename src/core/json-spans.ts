/**
 * Where each element of the top-level `"items"` array sits in a JSON text, as
 * [start, end) character offsets, without parsing it: pull hashes a row's own
 * text from the page instead of serializing the parsed row again (BENCHMARKS.md,
 * "Rows hashed from the page text").
 *
 * Only a shortcut, never trusted alone: a caller hashes what it slices, so a
 * span that is not the row's exact text just fails that check. Undefined when
 * the text is not an object with an "items" array this scanner can walk.
 */
export function itemSpans(text: string): Array<[number, number]> | undefined {
  let at = skipSpace(text, 0);
  if (text.charCodeAt(at) !== OPEN_BRACE) return undefined;
  at += 1;
  for (;;) {
    at = skipSpace(text, at);
    if (text.charCodeAt(at) !== QUOTE) return undefined;
    const keyEnd = stringEnd(text, at);
    if (keyEnd < 0) return undefined;
    const key = text.slice(at, keyEnd);
    at = skipSpace(text, keyEnd);
    if (text.charCodeAt(at) !== COLON) return undefined;
    at = skipSpace(text, at + 1);
    if (key === '"items"') return text.charCodeAt(at) === OPEN_BRACKET ? elementSpans(text, at) : undefined;
    at = valueEnd(text, at);
    if (at < 0) return undefined;
    at = skipSpace(text, at);
    if (text.charCodeAt(at) !== COMMA) return undefined;
    at += 1;
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** The spans of the elements of the array that opens at `open`. */
function elementSpans(text: string, open: number): Array<[number, number]> | undefined {
  const spans: Array<[number, number]> = [];
  let at = skipSpace(text, open + 1);
  if (text.charCodeAt(at) === CLOSE_BRACKET) return spans;
  for (;;) {
    const end = valueEnd(text, at);
    if (end < 0) return undefined;
    spans.push([at, end]);
    at = skipSpace(text, end);
    const next = text.charCodeAt(at);
    if (next === CLOSE_BRACKET) return spans;
    if (next !== COMMA) return undefined;
    at = skipSpace(text, at + 1);
  }
}

/**
 * Where the value starting at `at` ends. Strings are crossed with indexOf (rows
 * are mostly strings); only the characters between them are looked at one by
 * one. The text is valid JSON (the caller parsed it), so brackets are not matched by kind.
 */
function valueEnd(text: string, at: number): number {
  const first = text.charCodeAt(at);
  if (first === QUOTE) return stringEnd(text, at);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    // A number, true, false or null: up to the next delimiter.
    let index = at;
    while (index < text.length && !isDelimiter(text.charCodeAt(index))) index += 1;
    return index === at ? -1 : index;
  }
  let depth = 0;
  for (let index = at; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      const end = stringEnd(text, index);
      if (end < 0) return -1;
      index = end - 1;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth += 1;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth -= 1;
      if (depth === 0) return index + 1;
    }
  }
  return -1;
}

const isDelimiter = (code: number) => code === COMMA || code === CLOSE_BRACE || code === CLOSE_BRACKET || isSpace(code);
const isSpace = (code: number) => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;

/** The offset just past the string whose opening quote is at `open`; -1 if it never closes. */
function stringEnd(text: string, open: number): number {
  let at = open + 1;
  for (;;) {
    const quote = text.indexOf('"', at);
    if (quote < 0) return -1;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote + 1;
    at = quote + 1;
  }
}

function skipSpace(text: string, at: number): number {
  while (isSpace(text.charCodeAt(at))) at += 1;
  return at;
}
