// Values assigned to names: `DB_PASSWORD=…`, `password: "…"`, `"api_key": "…"`,
// `--token …`. Two rules read them. The password-style rule (layer 1) redacts
// any literal value of a password- or secret-like name; the entropy rule (layer 2)
// redacts a random-looking value of a key-, token-, secret- or password-like name.
//
// Precision matters as much as recall: code is full of such names whose values
// are not secrets (`password: string`, `apiKey = process.env.API_KEY`,
// `token: ${TOKEN}`, `"input_tokens": 1234`, `cacheKey = sha256(...)`), so a value
// that names another value, a type, a placeholder or a call is never a finding.
// Works on raw JSON text too: a quote may come escaped (`\"`), and a value stops
// at a backslash.
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
}

const ASSIGNMENT =
  /(?<![A-Za-z0-9_.-])(?<!:\/\/)(?<name>[A-Za-z_][A-Za-z0-9_.-]{0,80})(?:\\{0,3}["'`])?[ \t]{0,8}(?<sep>:=|=>|=(?!=)|:(?![:/]))[ \t]{0,8}(?:(?<q>\\{0,3}["'`])(?<qv>(?:(?!\k<q>)[^\n\\\p{C}]){1,256})\k<q>|(?<uv>[^\s\p{C}"'`,;)}\]\\]{1,256}))/dgu;
/** `--password hunter2`, `--token=abc`. (A URL's `user:password@` is not an assignment: the URL rules read it.) */
const FLAG = /(?<![A-Za-z0-9_-])--?(?<name>[A-Za-z][A-Za-z0-9_-]{1,40})(?:[ \t]+|=)(?<q>\\{0,3}["'])?(?<uv>[^\s\p{C}"'\\]{1,256})\k<q>?/dgu;

export function findAssignments(text: string): Assignment[] {
  const found: Assignment[] = [];
  for (const pattern of [ASSIGNMENT, FLAG]) {
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      const groups = match.groups!;
      const valueGroup = groups.qv !== undefined ? 'qv' : 'uv';
      const span = match.indices!.groups![valueGroup];
      if (!span) continue;
      // A value may itself hold assignments (`"content": "DB_PASSWORD=…"` in a JSON line): read on from its start.
      pattern.lastIndex = span[0];
      found.push({
        name: groups.name!,
        start: span[0],
        end: span[1],
        value: groups[valueGroup]!,
        quoted: groups.qv !== undefined,
        tight:
          groups.sep === '=' &&
          match.indices!.groups!.name![1] === match.indices!.groups!.sep![0] &&
          span[0] === match.indices!.groups!.sep![1],
      });
    }
  }
  return found;
}

/** Names whose value is a password or a secret. */
export const PASSWORD_NAME = /pass(?:word|wd|phrase)|(?<![a-z])(?:pass|pwd|pw)(?![a-z])|secret/i;
/** What must be near a password-like name for the password rule to look at a text: `=`, `:` or a flag's dashes. */
export const PASSWORD_TRIGGER =
  /(?:pass|pwd|pw|secret)[A-Za-z0-9_.-]{0,40}\\{0,3}["'`]?[ \t]{0,8}(?::|=)|--?[A-Za-z-]*(?:pass|pwd|secret)/i;
/** Names whose value may be a key or a token. */
const KEY_NAME =
  /token|secret|pass(?:word|wd|phrase)|(?<![a-z])(?:pwd|auth)|credential|api[_-]?key|(?<=[a-z0-9])[_.-]?key(?:s)?$|^(?:access|private|signing|encryption|master|license|client|app|secret)[_-]?key/i;
/** ...unless the name says what kind of non-secret they are. */
export const NOT_SECRET_NAME =
  /(?:public|cache|primary|foreign|sort|partition|idempotency|hash|map|row|lookup|unique|object|s3|storage|react|hot|monkey|tur|primary)[_-]?key|key[_-]?(?:id|name|path|file|type|size|length|count|prefix|pattern|ring|board|word|frame|stroke|code|value)s?$|tokens?[_-]?(?:type|count|usage|limit|url|uri|endpoint|name|id|length|budget|estimate|expir\w*)$|(?:input|output|max|total|cache\w*)[_-]?tokens?|^tokens$|auth[_-]?(?:type|url|uri|method|mode|provider|domain|header|scheme|server|flow|state|required|enabled)$|(?:has|is|use|with|no|enable|require|show|hide|allow)[_-]?(?:password|secret|token|auth)|(?:password|secret|token)[_-]?(?:policy|length|min\w*|max\w*|field|input|label|hint|rules?|strength|hash|digest|prompt|reset|confirm\w*|visible|changed|expir\w*|file|path|env|name|ref|id|arn|version|type|manager|store)s?$/i;

/** Words a value may be that say it is not the secret itself. */
const PLACEHOLDER_WORDS =
  /^(?:password|passwd|pass|secret|token|key|changeme|change[_-]?me|example|sample|placeholder|dummy|fake|test|testing|none|null|nil|undefined|true|false|yes|no|on|off|string|str|text|number|int|integer|bool|boolean|any|unknown|object|required|optional|hidden|masked|redacted|todo|tbd|fixme|empty|default|value|your[_-]?\w*|my[_-]?(?:password|secret|token|key))$/i;

/** The value is written in the text, not taken from somewhere else (a variable, the environment, a call, a template). */
export function isLiteralValue(assignment: Assignment): boolean {
  const { value, quoted, tight, name } = assignment;
  if (value.length < 6 || value.length > 256) return false;
  if (PLACEHOLDER_WORDS.test(value) || /^[\d.,_-]+$/.test(value)) return false;
  if (/^(?:\$|%|\{\{|\{%|<%|<[A-Za-z_ -]+>$|\*{3,}|\.{3}|xxx|XXX|\[REDACTED:|\/|\.\/|~\/|@[A-Za-z]|&)/.test(value)) return false;
  if (/process\.env|os\.environ|getenv|environ\[|ENV\[|secrets\.|vault:|\(\)?$|\$\{|\$\(/.test(value)) return false;
  // The same word as the name (`password: password`, `token = userToken`): a variable.
  if (value.toLowerCase().includes(name.toLowerCase().replace(/^-+/, '')) && value.length < name.length + 6) return false;
  if (!quoted) {
    // Unquoted: code reads `password = userInput`, `secret: config.secret`; a .env file reads `PASSWORD=hunter2`.
    const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*$/.test(value);
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
  return entropy(value) >= (value.length >= 24 ? 3.5 : 3.2);
}

export function entropyDetector(): RedactionDetector {
  return {
    id: 'high-entropy-assignment',
    source: 'built-in',
    fallback: true,
    description: 'A random-looking value (entropy ≥ 3.5 bits a character) assigned to a key-, token-, secret- or password-like name',
    trigger:
      /(?:token|secret|pass|pwd|auth|credential|key)[A-Za-z0-9_.-]{0,40}\\{0,3}["'`]?[ \t]{0,8}(?::|=)|--?[A-Za-z-]*(?:token|secret|key|pass)/i,
    detect(text) {
      const found: DetectedSecret[] = [];
      for (const assignment of findAssignments(text)) {
        const { name, value } = assignment;
        if (!KEY_NAME.test(name) || NOT_SECRET_NAME.test(name)) continue;
        if (!isLiteralValue(assignment) || !looksRandom(value)) continue;
        found.push({ start: assignment.start, end: assignment.end, rule: 'high-entropy-assignment' });
      }
      return found;
    },
  };
}
