import pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/cli.js';
import { onPostgres, startService, stopAllServices } from '../helpers/service.js';
import { clientFor, conversation } from '../server/http.js';
import { tokenWithRole } from './support.js';

/**
 * Issue 31 on PostgreSQL: a pull reads a page of rows, then the bytes of each small
 * transcript it puts inline. A forget (or retention run) that commits in between
 * removes a row and its blob together. The pull must answer 200 without that row,
 * never a 500 for a blob with a size and no pieces (as forget-killed.test.ts met
 * when a pull ran while the service finished a killed client's forget), nor the
 * row as a pointer to bytes that are gone.
 *
 * The interleaving is made, not waited for: this test's transaction locks one table
 * the pull reads blob bytes from, lets the pull run into that lock, removes the first
 * row as a forget's batch does, and commits.
 */
async function postgresSuite() {
  const test = suite('a pull while a forget commits (PostgreSQL)');
  test.after(async () => {
    await stopAllServices();
    cleanup();
  });

  for (const locked of ['blob_chunks', 'blob_owners']) {
    test(`the forget commits while the pull waits on ${locked}: 200, without the forgotten row`, async () => {
      const service = await startService({ backend: 'postgres' });
      await service.createProject('acme', 'web');
      const token = await tokenWithRole(service, { org: 'acme', project: 'web', name: 'ada', role: 'admin' });
      const admin = clientFor(service, token, 'acme', 'web');
      // The row to forget first in the page: the pull has read its row before anything else.
      const rows = ['gone', 'kept-1', 'kept-2'].map((id) => conversation(Buffer.from(`transcript ${id}\n`), true, { conversation_id: id }));
      for (const row of rows) assert.is((await admin.push('conversations', [row])).status, 200);

      const db = new pg.Client({ connectionString: service.databaseUrl });
      await db.connect();
      try {
        await db.query('BEGIN');
        await db.query(`LOCK TABLE ${locked} IN ACCESS EXCLUSIVE MODE`);
        const pulling = admin.pull('conversations');
        // Until the pull's read of the bytes waits on the lock.
        for (;;) {
          const waiting = await db.query('SELECT count(*)::int AS n FROM pg_locks WHERE relation = $1::regclass AND NOT granted', [locked]);
          if (waiting.rows[0].n > 0) break;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        // What a forget's batch removes in its transaction (src/server/privacy/removal.ts): the row, and the blob no row names.
        const sha = rows[0]!.content_sha256;
        const removed = await db.query("DELETE FROM items WHERE family = 'conversations' AND conversation_id = 'gone' RETURNING seq");
        assert.is(removed.rowCount, 1);
        await db.query('DELETE FROM blob_owners WHERE sha = $1', [sha]);
        await db.query('DELETE FROM blob_chunks WHERE sha = $1', [sha]);
        await db.query('DELETE FROM blobs WHERE sha = $1', [sha]);
        await db.query('COMMIT');

        const page = await pulling;
        assert.is(page.status, 200, page.text);
        const served = page.json.items as Array<Record<string, unknown>>;
        assert.equal(
          served.map((item) => item.conversation_id),
          ['kept-1', 'kept-2'],
        );
        for (const item of served) {
          const sent = rows.find((row) => row.conversation_id === item.conversation_id)!;
          assert.is(item.content_base64, sent.content_base64, `${String(item.conversation_id)} comes with its bytes`);
        }
      } finally {
        await db.query('ROLLBACK').catch(() => {});
        await db.end();
      }
    });
  }
  test.run();
}

await onPostgres('a pull while a forget commits', postgresSuite);
