// A parsed search query (query.ts) as PostgreSQL full-text search reads it:
// a tsquery expression in SQL whose every term is a bound parameter, never a
// piece of the user's text in the statement. The words are those FTS5's
// unicode61 tokenizer sees (letters and digits; everything else separates), so
// both backends of the service find the same documents: the text put into the
// tsvector is split the same way (`searchWords`).
import type { QueryNode } from './query.js';

export interface SqlFragment {
  /** SQL with `?` placeholders. */
  sql: string;
  params: string[];
}

/** The text-search configuration: no stemming and no stop words, as FTS5's unicode61. */
export const TS_CONFIG = 'simple';

/** Letters and digits, lowercased, diacritics removed; the rest is space (what FTS5's unicode61 with remove_diacritics keeps). */
export function searchWords(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * The tree as a tsquery: a term is phraseto_tsquery of its words (one word is
 * a phrase of one), a prefix term ends in `:*`, and AND, OR, NOT are && || && !!.
 * A term with no word left (punctuation alone) matches nothing, as in FTS5:
 * PostgreSQL would drop it from an AND instead, so the tree is simplified
 * first, and a query that can match nothing is NULL (no row is `@@ NULL`).
 */
export function toTsquery(node: QueryNode): SqlFragment {
  return written(node, false) ?? { sql: 'NULL::tsquery', params: [] };
}

/**
 * A looser tsquery every match of toTsquery's also matches, which a GIN index
 * answers without reading any document: a phrase's words each present (in any
 * order), and what a NOT takes away not taken away. The documents it finds are
 * then checked with the exact query, a few at a time (team/search.ts).
 */
export function toLooseTsquery(node: QueryNode): SqlFragment {
  return written(node, true) ?? { sql: 'NULL::tsquery', params: [] };
}

/** The fragment, or undefined for a part that matches nothing. */
function written(node: QueryNode, loose: boolean): SqlFragment | undefined {
  if (node.kind === 'term') {
    const words = searchWords(node.text).split(' ').filter(Boolean);
    if (words.length === 0) return undefined;
    const phrase = loose ? 'plainto_tsquery' : 'phraseto_tsquery';
    if (!node.prefix) return { sql: `${phrase}('${TS_CONFIG}', ?)`, params: [words.join(' ')] };
    // Only letters and digits reach to_tsquery, each followed by :* or nothing: no tsquery syntax can come from the user.
    const last = words.pop()!;
    const head = words.length === 0 ? [] : [{ sql: `${phrase}('${TS_CONFIG}', ?)`, params: [words.join(' ')] }];
    const parts = [...head, { sql: `to_tsquery('${TS_CONFIG}', ?)`, params: [`${last}:*`] }];
    return parts.reduce((left, right) =>
      loose ? join(left, '&&', right) : { sql: `tsquery_phrase(${left.sql}, ${right.sql})`, params: [...left.params, ...right.params] },
    );
  }
  const left = written(node.left, loose);
  if (node.kind === 'not' && loose) return left;
  const right = written(node.right, loose);
  if (node.kind === 'or') return left && right ? join(left, '||', right) : (left ?? right);
  if (node.kind === 'and') return left && right ? join(left, '&&', right) : undefined;
  // NOT: nothing minus anything is nothing; anything minus nothing is itself.
  return left && right ? join(left, '&& !!', right) : left;
}

function join(left: SqlFragment, operator: string, right: SqlFragment): SqlFragment {
  return { sql: `(${left.sql} ${operator} ${right.sql})`, params: [...left.params, ...right.params] };
}

/** The terms a match can show (those under a NOT's right side cannot be in a hit), for marking a snippet. */
export function shownTerms(node: QueryNode): Array<Extract<QueryNode, { kind: 'term' }>> {
  if (node.kind === 'term') return [node];
  if (node.kind === 'not') return shownTerms(node.left);
  return [...shownTerms(node.left), ...shownTerms(node.right)];
}
