import pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/cli.js';
import { freshPostgresDatabase, onPostgres, startService, stopAllServices } from '../helpers/service.js';
import { clientFor, conversation, summary, trace } from '../server/http.js';
import { filesHolding, tokenWithRole } from './support.js';

/**
 * Issue 31: removed means gone from disk, not only from queries. SQLite: no
 * byte of it in the database file, its WAL or the blob folder, while the
 * service still runs. PostgreSQL: after the VACUUM the forget runs, no tuple of
 * the tables that held it (nor of their TOAST tables) holds it; after a VACUUM
 * FULL, no page of their files does (docs/server.md says which is which).
 */
const MARKER = 'FORGET-ME-5e1c7a-credit-card-4111';

async function seedAndForget(backend: 'sqlite' | 'postgres', databaseUrl?: string, beforeForget?: () => Promise<void>) {
  const service = await startService({ backend, databaseUrl });
  await service.createProject('acme', 'web');
  const admin = clientFor(
    service,
    await tokenWithRole(service, { org: 'acme', project: 'web', name: 'ada', role: 'admin' }),
    'acme',
    'web',
  );
  const big = Buffer.concat([Buffer.from(`${MARKER}\n`), Buffer.alloc(300 * 1024, 0x61), Buffer.from(`\n${MARKER}\n`)]);
  assert.is((await admin.uploadBlob(big)).status, 201);
  const pushes = [
    await admin.push('conversations', [conversation(Buffer.from(`{"text":"${MARKER}"}\n`), true, { conversation_id: 'conv-x' })]),
    await admin.push('conversations', [conversation(big, false, { conversation_id: 'conv-x' })]),
    await admin.push('summaries', [summary({ conversation_id: 'conv-x', summary: `it said ${MARKER}` })]),
    await admin.push('traces', [trace({ conversation_id: 'conv-x', note: MARKER })]),
    await admin.push('conversations', [conversation(Buffer.from('keep me\n'), true, { conversation_id: 'conv-keep' })]),
  ];
  for (const reply of pushes) assert.is(reply.status, 200, reply.text);
  await beforeForget?.();
  // The team view folds the rows in (view_summaries holds the text too) before the forget.
  const forget = await admin.post(
    '/api/v1/forget',
    JSON.stringify({ conversation_ids: ['conv-x'], with_traces: true }),
    'application/json',
  );
  assert.is(forget.status, 200, forget.text);
  assert.equal(forget.json.removed, { conversations: 2, summaries: 1, traces: 1 });
  return { service, admin };
}

const test = suite('forgotten bytes leave the disk');
test.after(async () => {
  await stopAllServices();
  cleanup();
});

test('SQLite: nothing in tracer.db, its WAL or blobs/ holds a byte of it', async () => {
  const { service, admin } = await seedAndForget('sqlite');
  assert.equal(filesHolding(service.dataDir, MARKER), []);
  assert.is((await admin.pullAll('conversations')).length, 1, 'the rest is still there');
});

async function postgresSuite() {
  const pgTest = suite('forgotten bytes leave PostgreSQL');
  pgTest.after(async () => {
    await stopAllServices();
    cleanup();
  });
  pgTest('PostgreSQL: after the forget, no tuple holds it; after VACUUM FULL, no page does', async () => {
    // A database of its own: VACUUM removes a dead tuple only once no transaction of the same database
    // began before it died, and other tests (and other checkouts' runs) keep transactions open in the
    // shared one at any moment. What docs/server.md promises is about such a transaction: here none is.
    const databaseUrl = await freshPostgresDatabase();
    // The team view's search indexes the pushed text in the background: let it, so the forget has it to remove.
    const indexed = async () => {
      const watcher = new pg.Client({ connectionString: databaseUrl });
      await watcher.connect();
      try {
        for (const until = Date.now() + 30_000; Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 200))) {
          const [row] = (await watcher.query('SELECT count(*) AS n FROM search_docs WHERE position($1 in body) > 0', [MARKER])).rows;
          if (Number(row.n) > 0) return;
        }
        assert.unreachable('the search index never took the pushed text');
      } finally {
        await watcher.end();
      }
    };
    const { service } = await seedAndForget('postgres', databaseUrl, indexed);
    const client = new pg.Client({ connectionString: service.databaseUrl });
    await client.connect();
    try {
      await client.query('CREATE EXTENSION IF NOT EXISTS pageinspect SCHEMA public');
      const tables = ['items', 'blob_chunks', 'view_summaries', 'view_session_files', 'search_docs'];
      const withToast: string[] = [];
      for (const table of tables) {
        withToast.push(table);
        const toast = await client.query(
          `SELECT t.oid::regclass::text AS name FROM pg_class c JOIN pg_class t ON t.oid = c.reltoastrelid WHERE c.oid = $1::regclass`,
          [table],
        );
        if (toast.rows[0]) withToast.push(toast.rows[0].name);
      }
      const marker = Buffer.from(MARKER);
      const holding = async (what: 'tuples' | 'pages') => {
        const found: string[] = [];
        for (const relation of withToast) {
          const blocks = Number((await client.query('SELECT pg_relation_size($1::regclass) / 8192 AS n', [relation])).rows[0].n);
          for (let block = 0; block < blocks; block++) {
            const sql =
              what === 'tuples'
                ? 'SELECT count(*) AS n FROM public.heap_page_items(public.get_raw_page($1, $2)) WHERE t_data IS NOT NULL AND position($3::bytea in t_data) > 0'
                : 'SELECT CASE WHEN position($3::bytea in public.get_raw_page($1, $2)) > 0 THEN 1 ELSE 0 END AS n';
            if (Number((await client.query(sql, [relation, block, marker])).rows[0].n) > 0) found.push(`${relation} block ${block}`);
          }
        }
        return found;
      };
      assert.equal(await holding('tuples'), [], 'a tuple still holds it after the VACUUM');
      await client.query(`VACUUM FULL ${tables.join(', ')}`);
      assert.equal(await holding('pages'), [], 'a page still holds it after VACUUM FULL');
    } finally {
      await client.end();
    }
  });
  pgTest.run();
}

test.run();
await onPostgres('forgotten bytes on PostgreSQL', postgresSuite);
