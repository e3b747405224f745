import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { withContentId } from '../../src/core/content-id.js';
import { PostgresStorage } from '../../src/server/storage/postgres.js';
import { SqliteStorage } from '../../src/server/storage/sqlite.js';
import type { TraceStorage } from '../../src/server/storage/types.js';
import { ServiceDataSource } from '../../src/server/team/data-source.js';
import { viewProgress } from '../../src/server/team/progress.js';
import { cleanup, tempDir } from '../helpers/cli.js';
import { expectRejection } from '../helpers/errors.js';
import { freshPostgresSchema, postgresAvailable, stopAllServices } from '../helpers/service.js';

/**
 * The team view's tables on each backend, in process: a database from before
 * them is migrated and folded in on first read; a rewritten commit leaves the
 * lists; the newest summary and a ledger's own author win; a transcript is
 * paged across the backend's storage pieces; a batch bigger than one
 * transaction's worth is folded in whole.
 */
const sha = (text: string) => createHash('sha1').update(text).digest('hex');
const trace = (n: number, conversation: string, extra: Record<string, unknown> = {}) =>
  withContentId(
    {
      ts: new Date(Date.UTC(2025, 0, 1) + n * 60_000).toISOString(),
      conversation_id: conversation,
      agent: 'claude-code',
      model: 'claude-sonnet-4-5',
      files: [{ path: `src/f${n % 7}.ts` }],
      ...extra,
    },
    'id',
  ) as unknown as Record<string, unknown> & { id: string; ts: string };
const ledger = (commit: string, conversation: string, ts: string, metadata: Record<string, unknown> = {}) =>
  withContentId(
    {
      ts,
      commit,
      trace_ids: [],
      record: {
        version: '0.1.0',
        timestamp: ts,
        files: [
          {
            path: 'src/a.ts',
            conversations: [
              {
                url: `claude-code://session/${conversation}`,
                contributor: { type: 'ai', model_id: 'anthropic/claude-sonnet-4-5' },
                ranges: [{ start_line: 1, end_line: 8 }],
              },
              { contributor: { type: 'human' }, ranges: [{ start_line: 9, end_line: 10 }] },
            ],
          },
        ],
        metadata: { 'dev.tracer': metadata },
      },
    },
    'sha',
  ) as unknown as Record<string, unknown> & { sha: string; ts: string };

async function push(storage: TraceStorage, project: number, family: string, records: Array<Record<string, unknown>>, who: string) {
  await storage.insertItems(
    project,
    family,
    records.map((record) => ({
      key: String(record.id ?? record.sha ?? JSON.stringify([record.conversation_id, record.content_sha256])),
      tsMillis: Date.parse(String(record.ts)),
      body: JSON.stringify(record),
    })),
    who,
  );
}

const org = { hash: 'x'.repeat(64), org_slug: 'acme', project_slug: null, name: 'lead', role: 'read' as const };

async function cases(open: () => Promise<TraceStorage>) {
  const storage = await open();
  try {
    await storage.createProject('acme', 'app');
    const project = (await storage.findProject('acme', 'app'))!;
    const source = new ServiceDataSource(storage, org, { ready: (id) => storage.refreshView(id) });
    // More rows than one transaction folds in (2,000), in two sessions, from two people.
    const traces = Array.from({ length: 2_500 }, (_, n) => trace(n, n < 1_500 ? 'sess-a' : 'sess-b'));
    await push(storage, project.id, 'traces', traces.slice(0, 1_500), 'alice');
    await push(storage, project.id, 'traces', traces.slice(1_500), 'bob');
    const old = ledger(sha('old'), 'sess-a', traces[10]!.ts);
    const kept = ledger(sha('kept'), 'sess-b', traces[2_000]!.ts, { author: 'Carol <carol@example.com>' });
    await push(storage, project.id, 'ledgers', [old, kept], 'alice');
    await push(
      storage,
      project.id,
      'commit-links',
      [withContentId({ ts: traces[2_001]!.ts, commit: sha('new'), rewritten_from: sha('old'), session_ids: ['sess-a'] }, 'id')],
      'alice',
    );
    await push(
      storage,
      project.id,
      'summaries',
      [
        withContentId({ ts: '2025-02-02T00:00:00Z', conversation_url: 'claude-code://session/sess-a', summary: 'newest' }, 'id'),
        withContentId({ ts: '2025-02-01T00:00:00Z', conversation_url: 'claude-code://session/sess-a', summary: 'older' }, 'id'),
      ],
      'alice',
    );
    // A transcript over several of PostgreSQL's 256 KiB pieces, one JSON line per message.
    const lines = Array.from({ length: 3_000 }, (_, n) =>
      JSON.stringify({ type: 'user', message: { role: 'user', content: `message ${n} ${'x'.repeat(300)}` } }),
    );
    const bytes = Buffer.from(`${lines.join('\n')}\n`);
    const blob = createHash('sha256').update(bytes).digest('hex');
    await storage.writeBlob(project.id, blob, [bytes], Number.POSITIVE_INFINITY);
    await push(
      storage,
      project.id,
      'conversations',
      [{ conversation_id: 'sess-a', content_sha256: blob, size: bytes.length, ts: '2025-02-01T00:00:00Z' }],
      'alice',
    );

    assert.equal(await viewProgress(storage, project.id), { folded: 0, total: 2_506 }, 'nothing folded in before a read');
    const stats = await source.projectStats('acme/app');
    assert.equal(await viewProgress(storage, project.id), { folded: 2_506, total: 2_506 }, 'every row counted once, over two batches');
    assert.equal({ sessions: stats.sessions, traces: stats.traces, commits: stats.commits }, { sessions: 2, traces: 2_500, commits: 1 });
    const sessions = await source.sessions('acme/app', {});
    assert.equal(
      sessions.items.map((session) => [session.conversation_id, session.events, session.person, session.summary, session.files_total]),
      [
        ['sess-b', 1_000, 'bob', null, 7],
        ['sess-a', 1_500, 'alice', 'newest', 7],
      ],
    );
    assert.is((await source.sessions('acme/app', { q: 'NEWEST' })).total, 1, 'search is case-insensitive over summaries');
    assert.is((await source.sessions('acme/app', { q: '100%' })).total, 0, '% is taken literally');
    assert.is((await source.sessions('acme/app', { to: traces[1_499]!.ts.slice(0, 10) })).total, 2);
    const commits = await source.commits('acme/app', {});
    assert.equal(
      commits.items.map((commit) => [commit.sha, commit.author]),
      [[sha('kept'), 'Carol <carol@example.com>']],
      'the rewritten commit has left the list; the ledger names its author',
    );
    const share = await source.share('acme/app');
    assert.equal(share.by_person, [{ key: 'Carol <carol@example.com>', ai: 8, human: 2, mixed: 0 }]);
    const detail = await source.session('acme/app', 'sess-a');
    assert.is(detail.timeline.length, 1_000, 'the timeline stops at 1,000 events');
    assert.is(detail.transcript_bytes, bytes.length);
    let cursor: string | undefined;
    const seen: string[] = [];
    do {
      const page = await source.transcript('acme/app', 'sess-a', cursor, 500);
      for (const entry of page.entries) if (entry.kind === 'message') seen.push(entry.text.split(' ')[1]!);
      cursor = page.next ?? undefined;
    } while (cursor !== undefined);
    assert.equal(
      seen,
      lines.map((_, n) => String(n)),
      'every message once, in order, across pages and pieces',
    );
    await expectRejection(() => source.sessions('other/app', {}), 'unknown_project');
  } finally {
    await storage.close();
  }
}

test.after(async () => {
  await stopAllServices();
  cleanup();
});

test('SQLite: the team view over a database made before it', async () => {
  const dir = tempDir('team-storage-');
  // The tables as the first release made them, with a row already pushed.
  const first = await SqliteStorage.open(dir);
  await first.close();
  const db = new Database(join(dir, 'tracer.db'));
  db.exec('DROP TABLE schema_migrations');
  for (const { name } of db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'view_%'").all() as Array<{
    name: string;
  }>)
    db.exec(`DROP TABLE ${name}`);
  db.exec('DROP TABLE web_sessions; DROP INDEX items_project_seq; ALTER TABLE items DROP COLUMN pushed_by');
  // And what migration 4 (issue 31) added.
  db.exec(`DROP TABLE tombstones; DROP TABLE tombstone_heads; DROP TABLE audit_log; DROP TABLE audit_heads;
    DROP TABLE retention_policies; DROP TABLE blob_unlinks; DROP TABLE service_keys;
    DROP INDEX items_conversation; DROP INDEX items_blob; DROP INDEX items_age; DROP INDEX blob_owners_sha;
    ALTER TABLE items DROP COLUMN conversation_id; ALTER TABLE items DROP COLUMN blob_sha; ALTER TABLE tokens DROP COLUMN role`);
  // And the search index of migration 6 (issue 32); its view_ table went with the others.
  db.exec('DROP TABLE search_fts; DROP TABLE search_docs');
  db.close();
  await cases(() => SqliteStorage.open(dir));
});

test('PostgreSQL: the same', async () => {
  if (!(await postgresAvailable())) return console.log('  SKIPPED: no PostgreSQL for the team view storage case');
  const url = await freshPostgresSchema();
  await cases(() => PostgresStorage.open(url));
});

/** A view folded in before migration 3 counted no rows: the migration counts them, so progress is right at once. */
async function foldedBeforeCount(open: () => Promise<TraceStorage>, downgrade: (storage: TraceStorage) => Promise<void>) {
  const before = await open();
  await before.createProject('acme', 'app');
  const project = (await before.findProject('acme', 'app'))!;
  await push(before, project.id, 'traces', [trace(1, 'sess-a'), trace(2, 'sess-a'), trace(3, 'sess-b')], 'alice');
  await before.refreshView(project.id);
  await push(before, project.id, 'traces', [trace(4, 'sess-b')], 'alice');
  await downgrade(before);
  await before.close();
  const after = await open();
  try {
    assert.equal(await viewProgress(after, project.id), { folded: 3, total: 4 });
  } finally {
    await after.close();
  }
}

const dropFoldedCount = async (storage: TraceStorage) => {
  await storage.execute('ALTER TABLE view_progress DROP COLUMN folded');
  await storage.execute('DELETE FROM schema_migrations WHERE version = 3');
};

test('SQLite: a view folded in before the count of folded rows gets it from the migration', async () => {
  const dir = tempDir('team-storage-');
  await foldedBeforeCount(() => SqliteStorage.open(dir), dropFoldedCount);
});

test('PostgreSQL: the same', async () => {
  if (!(await postgresAvailable())) return console.log('  SKIPPED: no PostgreSQL for the team view storage case');
  const url = await freshPostgresSchema();
  await foldedBeforeCount(() => PostgresStorage.open(url), dropFoldedCount);
});

test.run();
