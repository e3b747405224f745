import Database from 'better-sqlite3';
import pg from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseQuery, toFts5 } from '../../src/search/query.js';
import { searchWords, shownTerms, toLooseTsquery, toTsquery, TS_CONFIG } from '../../src/search/tsquery.js';
import { markWindow, splitMarks } from '../../src/server/team/search.js';
import { postgresAvailable, TEST_POSTGRES_URL } from '../helpers/service.js';

// The service's two indexes must find the same documents for the same query:
// FTS5 (unicode61, diacritics removed) on SQLite, the tsquery of toTsquery over
// a tsvector of searchWords(text) on PostgreSQL, every term a bound parameter.
const DOCS = [
  'the retry-logic uses exponential backoff',
  'a.b:c and retries; src/net/retry.ts was written',
  'say "hi" NOT twice',
  'Café crème, naïve façade',
  "it's O'Brien's \\ back\\slash & pipe | bang ! colon : star *",
];
const QUERIES = [
  'retry logic',
  'retr*',
  '"exponential backoff"',
  '"backoff exponential"',
  'backoff OR retries',
  'retr* NOT backoff',
  '(backoff OR retries) AND and',
  '"say ""hi"""',
  'retry-logic',
  'a.b:c',
  'retry.ts',
  'src/net/retry.ts',
  'cafe',
  'CAFÉ',
  'naive',
  "o'brien*",
  'back\\slash',
  '"&" pipe',
  'bang! OR colon:',
  'net/ret*',
  'twice NOT hi',
  '"&"',
  '"&" OR pipe',
  'pipe NOT "!"',
];

const fts = new Database(':memory:');
fts.exec("CREATE VIRTUAL TABLE doc USING fts5(body, tokenize = 'unicode61 remove_diacritics 2')");
for (const body of DOCS) fts.prepare('INSERT INTO doc (body) VALUES (?)').run(body);
const sqliteMatch = (query: string): string[] =>
  (fts.prepare('SELECT body FROM doc WHERE doc MATCH ? ORDER BY rowid').all(toFts5(parseQuery(query))) as { body: string }[]).map(
    (row) => row.body,
  );

test('no word of the query is ever in the SQL: each term is a parameter, and only letters and digits reach to_tsquery', () => {
  for (const query of [...QUERIES, "x' OR 1=1 --", '"a:* & b | !c"', 'drop* OR table']) {
    const { sql, params } = toTsquery(parseQuery(query));
    assert.not.ok(sql.replaceAll("'simple'", '').includes("'"), `${query}: ${sql}`);
    assert.is(sql.split('?').length - 1, params.length);
    for (const param of params) assert.match(param, /^[\p{L}\p{N} ]+(:\*)?$/u, `${query}: ${param}`);
  }
});

test('searchWords splits as FTS5 does: letters and digits, lowercase, no diacritics', () => {
  assert.is(searchWords('src/net/Retry.ts'), 'src net retry ts');
  assert.is(searchWords('Café naïve — façade'), 'cafe naive facade');
  assert.is(searchWords('!!!'), '');
});

test('a snippet window marks the words a hit can show, not those under NOT; marks are offsets into the plain text', () => {
  const tree = parseQuery('retr* AND "exponential backoff" NOT linear');
  assert.equal(
    shownTerms(tree).map((term) => term.text),
    ['retr', 'exponential backoff'],
  );
  const marked = markWindow('The Retry logic: exponential\n\n backoff, not linear.', false, tree);
  const { snippet, marks } = splitMarks(marked);
  assert.is(snippet, 'The Retry logic: exponential backoff, not linear.');
  assert.equal(
    marks.map(([start, end]) => snippet.slice(start, end)),
    ['Retry', 'exponential', 'backoff'],
  );
  // A window cut inside a word drops that piece and says so.
  assert.is(splitMarks(markWindow('rkAround retry here', true, tree)).snippet, '… retry here');
});

if (await postgresAvailable()) {
  test('PostgreSQL finds what FTS5 finds, for every query', async () => {
    const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await client.connect();
    try {
      const rows = DOCS.map((body, index) => `(${index}, to_tsvector('${TS_CONFIG}', $${index + 1}))`).join(', ');
      for (const query of QUERIES) {
        const { sql, params } = toTsquery(parseQuery(query));
        let index = DOCS.length;
        const numbered = sql.replace(/\?/g, () => `$${++index}`);
        const found = await client.query<{ n: number }>(
          `SELECT n FROM (VALUES ${rows}) AS doc (n, tsv) WHERE tsv @@ ${numbered} ORDER BY n`,
          [...DOCS.map(searchWords), ...params],
        );
        assert.equal(
          found.rows.map((row) => DOCS[row.n]),
          sqliteMatch(query),
          query,
        );
        // The loose query the GIN index answers alone finds at least every exact match.
        const loose = toLooseTsquery(parseQuery(query));
        let at = DOCS.length;
        const looseFound = await client.query<{ n: number }>(
          `SELECT n FROM (VALUES ${rows}) AS doc (n, tsv) WHERE tsv @@ ${loose.sql.replace(/\?/g, () => `$${++at}`)} ORDER BY n`,
          [...DOCS.map(searchWords), ...loose.params],
        );
        const looser = new Set(looseFound.rows.map((row) => row.n));
        for (const row of found.rows) assert.ok(looser.has(row.n), `${query}: the loose query misses document ${row.n}`);
        assert.not.match(loose.sql, /phraseto|!!/, query);
      }
    } finally {
      await client.end();
    }
  });
}

test.run();
