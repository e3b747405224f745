// Values assigned to names: `DB_PASSWORD=…`, `password: "…"`, `"api_key": "…"`,
// `--token …`. Two rules read them. The password-style rule (one of the formats
// secretlint lacks) redacts any literal value of a password- or secret-like name;
// the entropy rule (the second layer) redacts a random-looking value of a key-,
// token-, secret- or password-like name.
//
// Precision matters as much as recall: code is full of such names whose values
// are not secrets (`password: string`, `apiKey = process.env.API_KEY`,
// `token: ${TOKEN}`, `"input_tokens": 1234`, `cacheKey = sha256(...)`), so a value
// that names another value, a type, a placeholder or a call is never a finding.
// Works on raw JSON text too: a quote may come escaped (`\"`), and a value stops
// at a backslash.
import { AnchorScanner, literalStarts } from '../anchors.js';
import { topLevelAlternatives } from '../spans.js';
import type { DetectedSecret, RedactionDetector } from '../types.js';

export interface Assignment {
  name: string;
  /** The value's span in the text. */
  start: number;
  end: number;
  value: string;
  quoted: boolean;
  /** `NAME=value`, shell and .env style: no space around `=`. */
  tight: boolean;
  /** The character after the value ('' at the text's end): what stopped a bare one. */
  after: string;
}

/**
 * Where a search for assignments starts: a name holding one of the words the
 * rules care about, followed by `=` or `:`, or by a `value:` line (or such a flag). Also the detector's
 * trigger: prose and code mention tokens and keys far more often than they assign one. A token count
 * (`"input_tokens": 1234`, in every usage block of a transcript) is not one: NOT_SECRET_NAME refuses any
 * name holding `input_token`, `output_token`, `max_token` or `total_token`, so the keyword is not looked
 * for there (after the literal, so the trigger pass still finds it by `token`).
 */
const NAMED =
  /(?:pass|pwd|pw(?![a-z])|secret|token(?<!(?:input|output|max|total)[_-]?token)|auth|credential|key)[A-Za-z0-9_.-]{0,40}(?:\\{0,3}["'`]?[ \t]{0,8}(?::|=)|(?:\\{0,3}["'])?[ \t]*(?:\r?\n|\\{1,3}n)[ \t]*value:)|--(?:pass|pwd|secret|token|[A-Za-z-]{0,20}key)/i;
/** The keywords, found like a trigger's (anchors.ts): one pass by their first letters, the expression only where one stands. */
const NAMED_AT = new RegExp(NAMED.source, 'iy');
const KEYWORDS = keywordScanner();
/**
 * The longest value read, in characters. A cloud session token is long: `aws sts get-session-token`
 * prints a `SessionToken` of 400 to over 1,000 characters, which a bound of 256 missed when quoted and
 * cut in two when not (the rest of it kept in clear). A value never spans lines, and the windows the
 * engine gives this detector end at a line's end, so none is cut shorter.
 */
const MAX_VALUE = 4096;
/** How far a value that starts with another name holding a keyword is read (`Secret:Pass123`; `token=token=…`). */
const SHORT_VALUE = 256;
/**
 * A value: quoted (ends at its quote), or bare (ends at a space, a quote, a closing bracket, a comma, or
 * a URL query's next `&name=`).
 */
const VALUE = String.raw`(?:(?<q>\\{0,3}["'${'`'}])(?<qv>(?:(?!\k<q>)[^\n\\\p{C}]){1,${MAX_VALUE}})\k<q>|(?<uv>(?:(?!&[A-Za-z_][\w.-]{0,80}=)[^\s\p{C}"'${'`'},;)}\]\\]){1,${MAX_VALUE}}))`;
/** `name = value`, `"name": "value"`, `name: value`, `NAME=value`, read from the name's first character. */
const ASSIGNMENT = new RegExp(
  String.raw`(?<name>[A-Za-z_][A-Za-z0-9_.-]{0,80})(?:\\{0,3}["'${'`'}])?[ \t]{0,8}(?<sep>:=|=>|=(?!=)|:(?![:/]))[ \t]{0,8}${VALUE}`,
  'duy',
);
/**
 * A Kubernetes-style pair, `- name: DB_PASSWORD` then `value: "…"` on the next
 * line, read from the name's first character once `name:` stands before it.
 */
const NAME_VALUE_PAIR = new RegExp(
  String.raw`(?<name>[A-Za-z_][A-Za-z0-9_.-]{0,80})(?:\\{0,3}["'])?[ \t]*(?:\r?\n|\\{1,3}n)[ \t]*value:[ \t]*${VALUE}`,
  'duy',
);
const NAME_KEY_BEFORE = /(?:^|[\s{,-]|\\n)name:[ \t]*(?:\\{0,3}["'])?$/;
/**
 * A full stop that ends a sentence rather than a value written without quotes (one: `!` and `?` are as
 * likely a password's own, and a second full stop is not a sentence's).
 */
const SENTENCE_END = /(?<!\.)\.$/;
/** `--password hunter2`, `--token=abc`, read from the first dash. */
const FLAG = new RegExp(
  String.raw`--?(?<name>[A-Za-z][A-Za-z0-9_-]{1,40})(?:[ \t]+|=)(?<q>\\{0,3}["'])?(?<uv>[^\s\p{C}"'\\]{1,${MAX_VALUE}})\k<q>?`,
  'duy',
);

/**
 * The assignments whose name holds a keyword. Found from each keyword outwards
 * (to the name's start, then forwards through the separator and the value), not
 * by trying the whole pattern at every character: transcripts are long and such
 * names are rare. A URL's `user:password@` is not an assignment (the URL rules
 * read it), and a value may itself hold one (`"content": "DB_PASSWORD=…"`).
 */
export function findAssignments(text: string): Assignment[] {
  const found: Assignment[] = [];
  /** Where the next keyword may start: past the last one, or from the value of the last assignment (a value may hold another). */
  let from = 0;
  const hits = KEYWORDS.scan(text);
  /** The first hit past the current keyword's separator: where its value must end. */
  let next = 0;
  for (const { index } of hits) {
    if (index < from) continue;
    NAMED_AT.lastIndex = index;
    const keyword = NAMED_AT.exec(text);
    if (!keyword) continue;
    const start = nameStart(text, index, 0);
    from = index + keyword[0].length;
    while (next < hits.length && hits[next]!.index < from) next += 1;
    // A value ends where the next assignment of a name holding a keyword starts, after a `&`, `?`, `;`, `,` or a
    // space (`&api_key=…&api_key=…`): read to MAX_VALUE each time, a line of such names cost 8 s a megabyte. One
    // the bound leaves empty or cuts inside its quotes is read again whole.
    const boundary = next < hits.length ? nameStart(text, hits[next]!.index, from) : text.length;
    // A value that starts with such a name (`Secret:Pass123`, `token=token=…`) is read to a value's usual length.
    const startsWithName = boundary <= from + 8;
    const limit = startsWithName
      ? Math.min(text.length, from + SHORT_VALUE)
      : boundary < text.length && /[&?;,\s]/.test(text[boundary - 1]!)
        ? boundary - (text[boundary - 1] === '&' ? 1 : 0)
        : text.length;
    // A URL's `user:password@` (the URL rules read it), or a segment of an ARN or URN (`arn:aws:secretsmanager:…`).
    if (text.startsWith('://', start - 3) || text[start - 1] === ':') continue;
    const flag = text[start] === '-';
    if (flag && start > 0 && /[A-Za-z0-9_]/.test(text[start - 1]!)) continue;
    if (!flag && !/[A-Za-z_]/.test(text[start]!)) continue;
    // The 40 characters before the name, not lastIndexOf over the text: where no `name:` stands, that reads back to its start at every keyword.
    const before = flag ? '' : text.slice(Math.max(0, start - 40), start);
    const pair = before.includes('name:') && NAME_KEY_BEFORE.test(before);
    const bounded = readAssignment(text, start, flag, pair, limit);
    const assignment =
      !startsWithName && limit < text.length && (!bounded || bounded.value === '')
        ? readAssignment(text, start, flag, pair, text.length)
        : bounded;
    if (!assignment) continue;
    from = assignment.start;
    if (assignment.value !== '') found.push(assignment);
  }
  return found;
}

/**
 * The assignment whose name starts at `start` (a flag's dash, or a `name:` / `value:` pair's name), or
 * undefined; its value may be empty (then it is no finding, but the search goes on from there).
 * Apart from findAssignments' loop, which the optimizing compiler then takes sooner.
 */
function readAssignment(text: string, start: number, flag: boolean, pair: boolean, limit: number): Assignment | undefined {
  const pattern = flag ? FLAG : pair ? NAME_VALUE_PAIR : ASSIGNMENT;
  pattern.lastIndex = start;
  const match = pattern.exec(limit < text.length ? text.slice(0, limit) : text);
  if (!match) return undefined;
  const groups = match.groups!;
  const valueGroup = groups.qv !== undefined ? 'qv' : 'uv';
  const span = match.indices!.groups![valueGroup];
  if (!span) return undefined;
  // An unquoted value at the end of a sentence (`password=hunter2.`) leaves the full stop to the sentence.
  const value = valueGroup === 'uv' && groups.q === undefined ? groups.uv!.replace(SENTENCE_END, '') : groups[valueGroup]!;
  return {
    name: groups.name!,
    start: span[0],
    end: span[0] + value.length,
    after: text.charAt(span[0] + value.length),
    value,
    quoted: groups.qv !== undefined,
    tight:
      !flag &&
      !pair &&
      groups.sep === '=' &&
      match.indices!.groups!.name![1] === match.indices!.groups!.sep![0] &&
      span[0] === match.indices!.groups!.sep![1],
  };
}

/** Where the name holding the keyword at `index` starts, not before `floor`. */
function nameStart(text: string, index: number, floor: number): number {
  let start = index;
  while (start > floor && isNameChar(text.charCodeAt(start - 1))) start -= 1;
  return start;
}

/** `[A-Za-z0-9_.-]`: a character of a name. */
function isNameChar(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x30 && code <= 0x39) ||
    code === 0x5f ||
    code === 0x2e ||
    code === 0x2d
  );
}

function keywordScanner(): AnchorScanner<true> {
  const scanner = new AnchorScanner<true>();
  for (const alternative of topLevelAlternatives(NAMED.source)) {
    const literal = literalStarts(alternative, NAMED.flags);
    if (!literal) throw new Error(`an alternative of the assignments' keywords starts with no literal: ${alternative}`);
    scanner.add({ owner: true, starts: literal.starts, fold: literal.fold, verify: new RegExp(alternative, 'iy') });
  }
  return scanner;
}

/** Names whose value is a password or a secret. */
export const PASSWORD_NAME = /pass(?:word|wd|phrase)|(?<![a-z])(?:pass|pwd|pw)(?![a-z])|secret/i;
/** Names whose value may be a key or a token. */
const KEY_NAME =
  /token|secret|pass(?:word|wd|phrase)|(?<![a-z])(?:pwd|auth)|credential|api[_-]?key|(?<=[a-z0-9])[_.-]?key(?:s)?$|^(?:access|private|signing|encryption|master|license|client|app|secret)[_-]?key/i;
/** ...unless the name says what kind of non-secret they are. */
export const NOT_SECRET_NAME =
  /(?:public|cache|primary|foreign|sort|partition|idempotency|hash|map|row|lookup|unique|object|s3|storage|react|hot|monkey|tur|primary)[_-]?key|key[_-]?(?:id|name|path|file|type|size|length|count|prefix|pattern|ring|board|word|frame|stroke|code|value)s?$|tokens?[_-]?(?:type|count|usage|limit|url|uri|endpoint|name|id|length|budget|estimate|expir\w*)$|(?:input|output|max|total|cache\w*)[_-]?tokens?|^tokens$|auth[_-]?(?:type|url|uri|method|mode|provider|domain|header|scheme|server|flow|state|required|enabled)$|(?:has|is|use|with|no|enable|require|show|hide|allow)[_-]?(?:password|secret|token|auth)|(?:password|secret|token)[_.-]?(?:policy|length|min\w*|max\w*|field|input|label|hint|rules?|strength|hash\w*|digest|prompt|reset\w*|confirm\w*|visible|changed\w*|expir\w*|file|path|env|name|ref|id|arn|version|type|manager|store|help|errors?|message|text|title|subject|question|description|placeholder|requirements?|last[_-]?used\w*|created\w*|updated\w*|url|uri|endpoint|header|provider\w*|class|key[_-]?ref)s?$|(?:forgot|reset|change)[_-]?password|(?:next|page|continuation|pagination|sync|cursor|resume)[_-]?(?:page[_-]?)?tokens?$|existing[_-]?secret|publishable|^(?:next|vite|react[_-]app)[_-]public|site[_-]?key|search[_-]?only/i;

/** Words a value may be that say it is not the secret itself. */
const PLACEHOLDER_WORDS =
  /^(?:password|passwd|pass|secret|token|key|changeme|change[_-]?me|example|sample|placeholder|dummy|fake|test|testing|none|null|nil|undefined|true|false|yes|no|on|off|string|str|text|number|int|integer|bool|boolean|any|unknown|object|required|optional|hidden|masked|redacted|todo|tbd|fixme|empty|default|value|your[_-]?\w*|my[_-]?(?:password|secret|token|key))$/i;

/** Types a secret's variable is declared with (TypeScript, Rust, Go, Python), which `secret: …` may name. */
const TYPE_NAME =
  /^(?:Uint8Array|ArrayBuffer|Buffer|CryptoKey|KeyObject|Uint(?:8Clamped|16|32)Array|Int(?:8|16|32)Array|Float(?:32|64)Array|Big(?:Int|Uint)64Array|SecretString|SecretBox|Secret|Option|Vec|Box|Arc|Rc|Mutex|RwLock|Cow|u(?:8|16|32|64|128|size)|i(?:8|16|32|64|128|size)|f32|f64|bytes|bytearray|SecureString|SensitiveString|Redacted)$/;

/** A name, or a dotted path of them. */
const IDENTIFIER = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/;
/** A name or a path of them (`a.b`, `Ns::Type`, `p->q`), which code calls, subscripts or makes generic. */
const PATH = String.raw`^[A-Za-z_$][\w$]*(?:(?:\.|::|->)[A-Za-z_$][\w$]*)*`;
/** Such a path, then a call's opening or a generic type's (`Option<Secret<String>>`). */
const CALL_OR_GENERIC = new RegExp(String.raw`${PATH}(?:\(|<[A-Za-z_&([])`);
/** ...or a subscript's. */
const SUBSCRIPT = new RegExp(String.raw`${PATH}\[`);
/**
 * Values that say what they are, not a secret: a date or a time (`password_changed_at`), a URL (the URL rules
 * read its credentials), an ARN, a value ending in `...` (`sk_test_...`), a publishable key, a placeholder
 * sentence (`your-password-here`, `change-me-to-a-long-random-string`, `replace_with_a_random_secret`).
 */
const NOT_A_SECRET_VALUE =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$|^[a-z][a-z0-9+.-]{0,20}:\/\/|^arn:|(?:\.{3}|…)$|^(?:pk|phc)_|(?:^|[-_ ])(?:your|here)(?:$|[-_ ])|^(?:change|replace|insert|put|enter|set|add)[-_ ](?:me|with|your|the|a|in)(?:$|[-_ ])|x{4,}|X{4,}/;

/** The value is written in the text, not taken from somewhere else (a variable, the environment, a call, a template). */
export function isLiteralValue(assignment: Assignment): boolean {
  const { value, quoted, tight, name, after } = assignment;
  if (value.length < 6 || value.length > MAX_VALUE) return false;
  if (PLACEHOLDER_WORDS.test(value) || /^[\d.,_-]+$/.test(value)) return false;
  if (/^(?:\$|%|\{\{|\{%|<%|<[^<>]+>$|<\/?[A-Za-z]|\*{3,}|\.{3}|xxx|XXX|\[REDACTED:|\/|\.\/|~\/|@[A-Za-z]|&)/.test(value)) return false;
  if (NOT_A_SECRET_VALUE.test(value)) return false;
  if (/process\.env|os\.environ|getenv|environ\[|ENV\[|secrets\.|vault:|\(\)?$|\$\{|\$\(/.test(value)) return false;
  // The same word as the name (`password: password`, `token = userToken`): a variable.
  if (value.toLowerCase().includes(name.toLowerCase().replace(/^-+/, '')) && value.length < name.length + 6) return false;
  if (!quoted) {
    // An object or a list opens there (`secretKeyRef: {name: db, key: password}`), not a value.
    if (!tight && /^[{[(]/.test(value)) return false;
    // A call or a generic type (`generate_key(length=32)`, `Option<Secret<String>>`), unless in NAME=value form,
    // where `DB_PASSWORD=Summer(2024)x` is a password; a subscript where the bare value stopped at its argument's
    // quote (escaped, in raw JSON), bracket or comma (`config["db"]["password"]`, `opts[:password]`): a password
    // with a bracket in it (`Abc[123`) ends at a space or the line's end.
    if (!tight && CALL_OR_GENERIC.test(value)) return false;
    if (SUBSCRIPT.test(value) && /^["'`,;)\]}\\]/.test(after)) return false;
    // A YAML tag and what it applies to: `password: !vault |`, `password: !secret db_password`, `!Ref DbPassword`.
    if (!tight && /^![A-Za-z][\w.-]*$/.test(value) && after.startsWith(' ')) return false;
    // Code's operators (`secret:i&&a.b64(s)`, `secretKey:t.k?t.k:e.s`, minified), or a type (`secret: Uint8Array;`).
    if (!tight && (/&&|\|\||\?\.|=>|\?[\w$.]+:/.test(value) || TYPE_NAME.test(value))) return false;
    // Unquoted: code reads `password = userInput`, `secret: config.secret`; a .env file reads `PASSWORD=hunter2`.
    const identifier = IDENTIFIER.test(value);
    if (identifier && value.includes('.')) return false;
    // `password = userInput`: a variable, unless it reads like a random string or comes in NAME=value form.
    if (identifier && !tight && !looksRandom(value) && !/[0-9]/.test(value)) return false;
  }
  return true;
}

/** Shannon entropy of the value's characters, in bits per character. */
export function entropy(value: string): number {
  const counts = new Map<string, number>();
  for (const char of value) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / value.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Content digests and integrity strings name content; they are not credentials. */
const DIGEST = /^(?:sha(?:1|224|256|384|512)[-:]|md5[-:]|blake2\w*[-:]|git:)/i;

/** Random enough to be a key: long, no spaces, several kinds of character, and high entropy. */
export function looksRandom(value: string): boolean {
  if (value.length < 16 || /\s/.test(value) || UUID.test(value) || DIGEST.test(value)) return false;
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/].filter((kind) => kind.test(value)).length;
  if (classes < 2) return false;
  // Hex has 16 characters, so 4 bits a character at most: a random 32-digit token falls under 3.5 one time in
  // five (Twilio's auth tokens, PagerDuty's routing keys).
  if (/^(?:[0-9a-f]+|[0-9A-F]+)$/.test(value)) return value.length >= 20 && entropy(value) >= 3.0;
  return entropy(value) >= (value.length >= 24 ? 3.5 : 3.2);
}

/** Names of a token or an API key, whose value may be a UUID (Heroku's and Postmark's are). */
const TOKEN_NAME = /token|api[_-]?key/i;

/**
 * Both rules in one detector: one search for assignments serves them, and one
 * trigger (a key-, token-, secret- or password-like name followed by `=` or `:`,
 * or such a flag) lets a text through to it. Catch-alls: where another detector
 * finds the same secret, that one names it.
 */
export function assignmentsDetector(): RedactionDetector {
  return {
    id: 'assignments',
    source: 'built-in',
    description: 'Values assigned to password-, secret-, key- and token-like names',
    rules: [
      {
        id: 'password-assignment',
        description: 'A literal value assigned to a password- or secret-like name (password=…, secret: …, "passwd": "…")',
      },
      {
        id: 'high-entropy-assignment',
        description: 'A random-looking value (entropy ≥ 3.5 bits a character) assigned to a key-, token-, secret- or password-like name',
      },
    ],
    fallback: true,
    trigger: NAMED,
    // A name of up to 80 characters, the separator, the start of a value (its line is given whole).
    reach: 512,
    detect(text) {
      const found: DetectedSecret[] = [];
      for (const assignment of findAssignments(text)) {
        const { name, value } = assignment;
        if (NOT_SECRET_NAME.test(name) || !isLiteralValue(assignment)) continue;
        if (PASSWORD_NAME.test(name)) found.push({ start: assignment.start, end: assignment.end, rule: 'password-assignment' });
        else if (KEY_NAME.test(name) && (looksRandom(value) || (TOKEN_NAME.test(name) && UUID.test(value))))
          found.push({ start: assignment.start, end: assignment.end, rule: 'high-entropy-assignment' });
      }
      return found;
    },
  };
}
