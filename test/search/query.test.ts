import Database from 'better-sqlite3';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TracerError } from '../../src/core/errors.js';
import { parseQuery, queryTerms, toFts5 } from '../../src/search/query.js';

const fts = new Database(':memory:');
fts.exec(
  "CREATE VIRTUAL TABLE doc USING fts5(body); INSERT INTO doc VALUES ('the retry-logic uses backoff'), ('a.b:c and retries'), ('say \"hi\" NOT twice')",
);
const match = (query: string): string[] =>
  (fts.prepare('SELECT body FROM doc WHERE doc MATCH ? ORDER BY rowid').all(toFts5(parseQuery(query))) as { body: string }[]).map(
    (row) => row.body,
  );

test('words, phrases, prefixes and operators are read as FTS5 reads them', () => {
  assert.equal(match('retry logic'), ['the retry-logic uses backoff']);
  assert.equal(match('retr*'), ['the retry-logic uses backoff', 'a.b:c and retries']);
  assert.equal(match('"uses backoff"'), ['the retry-logic uses backoff']);
  assert.equal(match('backoff OR retries'), ['the retry-logic uses backoff', 'a.b:c and retries']);
  assert.equal(match('retr* NOT backoff'), ['a.b:c and retries']);
  assert.equal(match('(backoff OR retries) AND and'), ['a.b:c and retries']);
  assert.equal(match('"say ""hi"""'), ['say "hi" NOT twice']);
});

test('punctuation inside a word is text, never a column filter or an operator', () => {
  assert.equal(match('retry-logic'), ['the retry-logic uses backoff']);
  assert.equal(match('a.b:c'), ['a.b:c and retries']);
  assert.equal(match('not'), ['say "hi" NOT twice'], 'a lowercase not is a word');
});

test('NOT binds tighter than AND, AND tighter than OR', () => {
  assert.equal(toFts5(parseQuery('a OR b c NOT d')), '("a" OR ("b" AND ("c" NOT "d")))');
  assert.equal(
    queryTerms(parseQuery('a OR "b c"*')).map((term) => [term.text, term.prefix, term.phrase]),
    [
      ['a', false, false],
      ['b c', true, true],
    ],
  );
});

for (const [query, words] of [
  ['', 'empty'],
  ['   ', 'empty'],
  ['"unterminated', 'not closed'],
  ['(a OR b', 'not closed'],
  ['a)', 'out of place'],
  ['a AND', 'ends with an operator'],
  ['NOT a', 'NOT needs a term'],
  ['OR', 'no words'],
  ['a\0b', 'NUL'],
  ['x'.repeat(10_000), 'at most 1000'],
  [Array.from({ length: 40 }, (_, i) => `w${i}`).join(' '), 'at most 32'],
] as const)
  test(`invalid_query with a sentence: ${JSON.stringify(query.slice(0, 20))}`, () => {
    try {
      parseQuery(query);
      assert.unreachable('the query was accepted');
    } catch (error) {
      assert.instance(error, TracerError);
      assert.is((error as TracerError).code, 'invalid_query');
      assert.ok((error as Error).message.includes(words), (error as Error).message);
    }
  });

test('whatever parses, FTS5 accepts', () => {
  const samples = ['a*', '"a b"*', '* a', 'a - b', "it's", 'x:y', '^a', 'NEAR(a b)', 'a AND (b OR (c NOT d))', 'éclair 日本語'];
  for (const sample of samples) assert.not.throws(() => match(sample), sample);
});

test.run();
