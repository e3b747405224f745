// The team view's search answer: `pending` counts what its hits may be missing. The background indexing
// may write a document while a search runs; an answer that says nothing is pending has every document in
// its hits (the race made `team-search.test.ts`'s huge transcript flaky under load).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withContentId } from '../../src/core/content-id.js';
import { SqliteStorage } from '../../src/server/storage/sqlite.js';
import type { TraceStorage } from '../../src/server/storage/types.js';
import { ServiceDataSource } from '../../src/server/team/data-source.js';
import { updateSearchIndex } from '../../src/server/team/search-index.js';
import { cleanup, tempDir } from '../helpers/cli.js';

const reader = { hash: 'x'.repeat(64), org_slug: 'acme', project_slug: null, name: 'lead', role: 'read' as const };

test('a document indexed while a search runs is pending in that answer, never missing from one that says none is', async () => {
  const dir = tempDir('tracer-search-pending-');
  const storage = await SqliteStorage.open(dir);
  try {
    await storage.createProject('acme', 'app');
    const project = (await storage.findProject('acme', 'app'))!;
    const summary = withContentId(
      { ts: '2025-02-02T00:00:00Z', conversation_url: 'claude-code://session/s1', summary: 'the wombat migration' },
      'id',
    ) as Record<string, unknown>;
    await storage.insertItems(
      project.id,
      'summaries',
      [{ key: String(summary.id), tsMillis: Date.parse('2025-02-02'), body: JSON.stringify(summary) }],
      'alice',
    );
    // The background indexing finishes just after the search's own query has read the index.
    let indexed = false;
    const racing = new Proxy(storage, {
      get(target, name) {
        const value = Reflect.get(target, name) as unknown;
        // Its own methods on itself: they read private fields.
        if (name !== 'query') return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        return async (sql: string, params?: unknown[]) => {
          const rows = await target.query(sql, params as never);
          if (!indexed && sql.includes('MATCH')) {
            indexed = true;
            await updateSearchIndex(target, project.id);
          }
          return rows;
        };
      },
    }) as TraceStorage;
    const source = new ServiceDataSource(racing, reader, { ready: (id) => storage.refreshView(id) });
    const first = await source.search('acme/app', 'wombat', 10);
    assert.ok(indexed, 'the index was written during the search');
    assert.ok(first.pending > 0 || first.hits.length === 1, `pending ${first.pending} with ${first.hits.length} hits`);
    const second = await source.search('acme/app', 'wombat', 10);
    assert.is(second.pending, 0);
    assert.is(second.hits.length, 1, 'the next search finds it');
  } finally {
    await storage.close();
    cleanup();
  }
});

test.run();
