// The one reading of a search query, for every place that searches: the local
// index (SQLite FTS5), the service's embedded index (FTS5) and PostgreSQL's
// full-text search. People type FTS5's syntax (phrases in quotes, prefix*,
// AND / OR / NOT, parentheses); everything else they type is text, never a
// column filter or an operator FTS5 would trip on ("retry-logic", "a.b:c").
// The query is parsed here once, and each backend writes its own form of the
// tree, with every term passed as a quoted string or a bound parameter.
import { ExitCode, TracerError } from '../core/errors.js';

/** Longer queries are refused: nobody types them, and each term costs the index a lookup. */
export const QUERY_MAX_CHARS = 1_000;
export const QUERY_MAX_TERMS = 32;

export type QueryNode =
  { kind: 'term'; text: string; prefix: boolean; phrase: boolean } | { kind: 'and' | 'or' | 'not'; left: QueryNode; right: QueryNode };

type Token = { kind: 'word' | 'phrase'; text: string; prefix: boolean } | { kind: 'AND' | 'OR' | 'NOT' | '(' | ')' };

/** The query as a tree; `invalid_query` with a sentence that says what to change when it cannot be read. */
export function parseQuery(raw: string): QueryNode {
  const query = raw.trim();
  if (query === '') throw invalid('The query is empty: give a word or a "quoted phrase" to search for.');
  if (query.length > QUERY_MAX_CHARS)
    throw invalid(`The query is ${query.length} characters long; shorten it to at most ${QUERY_MAX_CHARS}.`);
  if (query.includes('\0')) throw invalid('The query holds a NUL character; remove it.');
  const tokens = tokenize(query);
  const terms = tokens.filter((token) => token.kind === 'word' || token.kind === 'phrase').length;
  if (terms === 0) throw invalid('The query has operators but no words: give a word or a "quoted phrase" to search for.');
  if (terms > QUERY_MAX_TERMS) throw invalid(`The query has ${terms} terms; use at most ${QUERY_MAX_TERMS}.`);
  const parser = new Parser(tokens);
  const tree = parser.or();
  if (!parser.done()) throw invalid(`"${parser.describeNext()}" is out of place: check the parentheses and operators.`);
  return tree;
}

/** The tree in FTS5's syntax, each term a quoted string (so no word is read as a column or an operator). */
export function toFts5(node: QueryNode): string {
  if (node.kind === 'term') return `"${node.text.replaceAll('"', '""')}"${node.prefix ? '*' : ''}`;
  return `(${toFts5(node.left)} ${node.kind.toUpperCase()} ${toFts5(node.right)})`;
}

/** The terms of the tree, left to right (for highlighting, and for backends that bind each one). */
export function queryTerms(node: QueryNode): Extract<QueryNode, { kind: 'term' }>[] {
  return node.kind === 'term' ? [node] : [...queryTerms(node.left), ...queryTerms(node.right)];
}

function invalid(message: string): TracerError {
  return new TracerError('invalid_query', message, { exitCode: ExitCode.usage });
}

const OPERATORS = new Set(['AND', 'OR', 'NOT']);

function tokenize(query: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < query.length) {
    const char = query[at]!;
    if (/\s/u.test(char)) {
      at += 1;
    } else if (char === '(' || char === ')') {
      tokens.push({ kind: char });
      at += 1;
    } else if (char === '"') {
      // A phrase ends at the next lone quote; "" inside it is a quote, as in FTS5.
      let text = '';
      let end = at + 1;
      for (;;) {
        const close = query.indexOf('"', end);
        if (close < 0) throw invalid('A quoted phrase is not closed: add the closing ".');
        text += query.slice(end, close);
        if (query[close + 1] === '"') {
          text += '"';
          end = close + 2;
        } else {
          end = close + 1;
          break;
        }
      }
      const prefix = query[end] === '*';
      at = prefix ? end + 1 : end;
      if (text.trim() !== '') tokens.push({ kind: 'phrase', text, prefix });
    } else {
      let end = at;
      while (end < query.length && !/[\s()"]/u.test(query[end]!)) end += 1;
      const word = query.slice(at, end);
      at = end;
      if (OPERATORS.has(word)) tokens.push({ kind: word as 'AND' | 'OR' | 'NOT' });
      else {
        const prefix = word.length > 1 && word.endsWith('*');
        const text = (prefix ? word.slice(0, -1) : word).replace(/^\*+|\*+$/gu, '');
        // A word that is punctuation alone matches nothing any index keeps.
        if (/[\p{L}\p{N}]/u.test(text)) tokens.push({ kind: 'word', text, prefix });
      }
    }
  }
  return tokens;
}

// FTS5's precedence: NOT binds tightest, then AND (also implied between two terms), then OR.
class Parser {
  private at = 0;
  constructor(private readonly tokens: Token[]) {}

  done(): boolean {
    return this.at >= this.tokens.length;
  }

  describeNext(): string {
    const token = this.tokens[this.at]!;
    return 'text' in token ? token.text : token.kind;
  }

  or(): QueryNode {
    let left = this.and();
    while (this.peek() === 'OR') {
      this.at += 1;
      left = { kind: 'or', left, right: this.and() };
    }
    return left;
  }

  private and(): QueryNode {
    let left = this.not();
    for (;;) {
      const next = this.peek();
      if (next === 'AND') this.at += 1;
      else if (next !== 'word' && next !== 'phrase' && next !== '(') return left;
      left = { kind: 'and', left, right: this.not() };
    }
  }

  private not(): QueryNode {
    let left = this.unary();
    while (this.peek() === 'NOT') {
      this.at += 1;
      left = { kind: 'not', left, right: this.unary() };
    }
    return left;
  }

  private unary(): QueryNode {
    const token = this.tokens[this.at];
    if (token === undefined) throw invalid('The query ends with an operator: give a word after it, or remove it.');
    this.at += 1;
    if (token.kind === '(') {
      const inner = this.or();
      if (this.tokens[this.at]?.kind !== ')') throw invalid('A parenthesis is not closed: add the closing ).');
      this.at += 1;
      return inner;
    }
    if (token.kind === 'word' || token.kind === 'phrase')
      return { kind: 'term', text: token.text, prefix: token.prefix, phrase: token.kind === 'phrase' };
    if (token.kind === 'NOT') throw invalid('NOT needs a term before it, as in "retry NOT backoff".');
    throw invalid(`"${token.kind}" is out of place: put a word or a "quoted phrase" on each side of an operator.`);
  }

  private peek(): Token['kind'] | undefined {
    return this.tokens[this.at]?.kind;
  }
}
