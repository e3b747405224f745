import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SqliteStorage } from '../../src/server/storage/sqlite.js';
import { cleanup, tempDir } from '../helpers/cli.js';

/**
 * Issue 31: forget and retention run transactions that await between their
 * statements on SQLite's one connection. Other requests' writes must wait for
 * them, and two of them must never begin together.
 */
test.after(cleanup);

test('transactions that await run one after another; writes arriving meanwhile wait and are kept; a failed one takes back only its own', async () => {
  const storage = await SqliteStorage.open(join(tempDir(), 'data'));
  try {
    await storage.createProject('acme', 'web');
    const project = (await storage.findProject('acme', 'web'))!;
    const order: string[] = [];
    const tx = (name: string, fail = false) =>
      storage.transaction(async (t) => {
        order.push(`${name} begins`);
        await t.execute('INSERT INTO retention_policies (project_id, policy) VALUES (?, ?)', [1000 + order.length, name]);
        await new Promise((resolve) => setTimeout(resolve, 20));
        if (fail) throw new Error(`${name} fails`);
        order.push(`${name} ends`);
      });
    const item = (n: number) => ({ key: `k${n}`, tsMillis: 0, body: `{"n":${n}}` });
    const results = await Promise.allSettled([
      tx('a'),
      tx('b', true),
      storage.insertItems(project.id, 'traces', [item(1)]),
      tx('c'),
      storage.insertItems(project.id, 'traces', [item(2)]),
    ]);
    assert.equal(
      results.map((result) => result.status),
      ['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled'],
    );
    // Never two open at once: each "begins" is followed by its own "ends" (or its failure).
    assert.equal(order, ['a begins', 'a ends', 'b begins', 'c begins', 'c ends']);
    const policies = await storage.query<{ policy: string }>('SELECT policy FROM retention_policies ORDER BY policy');
    assert.equal(
      policies.map((row) => row.policy),
      ['a', 'c'],
      'the failed transaction took back its own insert only',
    );
    assert.is((await storage.query<{ n: number }>('SELECT COUNT(*) AS n FROM items'))[0]!.n, 2, 'both uploads are kept');
  } finally {
    await storage.close();
  }
});

test.run();
