import { createReadStream } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { BlobMeter } from '../blob-stream.js';
import { foldPlan, VIEW_BATCH, type ItemRow } from '../team/derive.js';
import { valuesStatements } from '../team/fold-sql.js';
import { MIGRATIONS_TABLE, migrations, SQLITE_DIALECT } from './migrations.js';
import type { NewToken, ProjectRef, PullPage, PullQuery, SqlTransaction, StoredItem, TokenRecord, TraceStorage } from './types.js';
import { writeStreamAtomic } from '../../files/atomic-write.js';
import { ensureDir, remove } from '../../files/index.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS projects (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  org_slug TEXT NOT NULL,
  project_slug TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  UNIQUE (org_slug, project_slug)
);
CREATE TABLE IF NOT EXISTS tokens (
  hash TEXT PRIMARY KEY,
  org_slug TEXT NOT NULL,
  project_slug TEXT,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
);
CREATE TABLE IF NOT EXISTS items (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL REFERENCES projects(id),
  family TEXT NOT NULL,
  item_key TEXT NOT NULL,
  ts_ms INTEGER NOT NULL,
  body TEXT NOT NULL,
  UNIQUE (project_id, family, item_key)
);
CREATE INDEX IF NOT EXISTS items_pull ON items (project_id, family, seq);
CREATE TABLE IF NOT EXISTS blob_owners (
  project_id INTEGER NOT NULL REFERENCES projects(id),
  sha TEXT NOT NULL,
  size INTEGER NOT NULL,
  PRIMARY KEY (project_id, sha)
);
`;

function migrate(db: Database.Database): void {
  db.exec(MIGRATIONS_TABLE);
  const applied = new Set(
    (db.prepare('SELECT version FROM schema_migrations').all() as Array<{ version: number }>).map((row) => row.version),
  );
  for (const migration of migrations(SQLITE_DIALECT)) {
    if (applied.has(migration.version)) continue;
    db.transaction(() => {
      for (const statement of migration.statements) db.exec(statement);
      db.prepare('INSERT INTO schema_migrations (version) VALUES (?)').run(migration.version);
    })();
  }
}

/**
 * Embedded backend: one SQLite file (WAL) for rows, a content-addressed folder
 * `blobs/<sha[:2]>/<sha>` for bytes. SQLite serializes writers, so the AUTOINCREMENT
 * sequence is both ingest order and commit order.
 */
export class SqliteStorage implements TraceStorage {
  readonly backend = 'sqlite';
  readonly location: string;
  /** The fold runs in this process's event loop (better-sqlite3 is synchronous): during a push it would slow the uploads. */
  readonly foldsWithUploads = false;
  readonly #db: Database.Database;
  readonly #blobDir: string;

  private constructor(dataDir: string, db: Database.Database) {
    this.location = dataDir;
    this.#db = db;
    this.#blobDir = join(dataDir, 'blobs');
  }

  static async open(dataDir: string): Promise<SqliteStorage> {
    await ensureDir(join(dataDir, 'blobs'), 0o700);
    // Versions before the atomic write kept upload temp files in tmp/: leftovers, never visible.
    await remove(join(dataDir, 'tmp'));
    const db = new Database(join(dataDir, 'tracer.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    // Deleted content is overwritten with zeros, in the database and in its free pages (issue 31: forget and retention).
    db.pragma('secure_delete = ON');
    db.exec(SCHEMA);
    migrate(db);
    const storage = new SqliteStorage(dataDir, db);
    // A service killed between a removal's commit and its unlinks finishes them now.
    await storage.purge();
    return storage;
  }

  async createProject(org: string, project: string): Promise<boolean> {
    while (this.#inTransaction) await this.#inTransaction;
    return (
      this.#db.prepare('INSERT INTO projects (org_slug, project_slug) VALUES (?, ?) ON CONFLICT DO NOTHING').run(org, project).changes > 0
    );
  }

  async findProject(org: string, project: string): Promise<ProjectRef | undefined> {
    return this.#db.prepare('SELECT id, org_slug, project_slug FROM projects WHERE org_slug = ? AND project_slug = ?').get(org, project) as
      ProjectRef | undefined;
  }

  async createToken(token: NewToken): Promise<void> {
    while (this.#inTransaction) await this.#inTransaction;
    this.#db
      .prepare('INSERT INTO tokens (hash, org_slug, project_slug, name, role) VALUES (?, ?, ?, ?, ?)')
      .run(token.hash, token.org_slug, token.project_slug, token.name, token.role);
  }

  async findToken(hash: string): Promise<TokenRecord | undefined> {
    return this.#db.prepare('SELECT hash, org_slug, project_slug, name, role FROM tokens WHERE hash = ?').get(hash) as
      TokenRecord | undefined;
  }

  async insertItems(projectId: number, family: string, items: readonly StoredItem[], pushedBy?: string): Promise<number> {
    while (this.#inTransaction) await this.#inTransaction;
    const insert = this.#db.prepare(
      // A tombstoned key is never stored again, whatever checked it before (issue 31).
      `INSERT INTO items (project_id, family, item_key, ts_ms, body, pushed_by, conversation_id, blob_sha)
       SELECT @project, @family, @key, @ts, @body, @by, @conversation, @blob
       WHERE NOT EXISTS (SELECT 1 FROM tombstones WHERE project_id = @project AND family = @family AND item_key = @key) ON CONFLICT DO NOTHING`,
    );
    const insertAll = this.#db.transaction((rows: readonly StoredItem[]) => {
      let inserted = 0;
      for (const row of rows)
        inserted += insert.run({
          project: projectId,
          family,
          key: row.key,
          ts: row.tsMillis,
          body: row.body,
          by: pushedBy ?? null,
          conversation: row.conversationId ?? null,
          blob: row.blobSha ?? null,
        }).changes;
      return inserted;
    });
    return insertAll(items);
  }

  async transaction<T>(work: (tx: SqlTransaction) => Promise<T>): Promise<T> {
    // One writer: a transaction that awaits must keep every other request's writes out until it ends.
    while (this.#inTransaction) await this.#inTransaction;
    let done!: () => void;
    this.#inTransaction = new Promise<void>((resolve) => (done = resolve));
    const tx: SqlTransaction = {
      query: async <R>(sql: string, params: readonly unknown[] = []) => this.#statement(sql).all(...params) as R[],
      execute: async (sql, params = []) => this.#statement(sql).run(...params).changes,
      forUpdate: '',
      releaseBlobs: async (projectId, shas) => {
        for (const sha of shas) {
          this.#statement('DELETE FROM blob_owners WHERE project_id = ? AND sha = ?').run(projectId, sha);
          if (!this.#statement('SELECT 1 FROM blob_owners WHERE sha = ?').get(sha)) {
            this.#statement('INSERT INTO blob_unlinks (sha) VALUES (?) ON CONFLICT DO NOTHING').run(sha);
          }
        }
      },
    };
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const result = await work(tx);
      this.#db.exec('COMMIT');
      return result;
    } catch (error) {
      if (this.#db.inTransaction) this.#db.exec('ROLLBACK');
      throw error;
    } finally {
      this.#inTransaction = undefined;
      done();
    }
  }

  async purge(): Promise<void> {
    const pending = this.#db.prepare('SELECT sha FROM blob_unlinks').all() as Array<{ sha: string }>;
    for (const { sha } of pending) {
      // Being uploaded again right now: the next purge looks at it once that upload is done.
      if (this.#writing.has(sha)) continue;
      while (this.#inTransaction) await this.#inTransaction;
      // Uploaded again since it was released: the file is someone's again.
      if (!this.#db.prepare('SELECT 1 FROM blob_owners WHERE sha = ?').get(sha)) {
        const unlinked = rm(this.#blobPath(sha), { force: true });
        this.#unlinking.set(
          sha,
          unlinked.then(() => undefined),
        );
        try {
          await unlinked;
        } finally {
          this.#unlinking.delete(sha);
        }
      }
      while (this.#inTransaction) await this.#inTransaction;
      this.#db.prepare('DELETE FROM blob_unlinks WHERE sha = ?').run(sha);
    }
    while (this.#inTransaction) await this.#inTransaction;
    // The WAL still holds the pages as they were before the delete: copy the zeroed ones back and empty the log.
    this.#db.pragma('wal_checkpoint(TRUNCATE)');
  }

  /**
   * Set while a transaction() awaits: the synchronous writes of other requests wait for it. Each
   * writer checks it in the same turn as it writes (the loop is inline, never in a helper that
   * returns a promise), so no transaction can begin in between.
   */
  #inTransaction: Promise<void> | undefined;
  /** Blob uploads under way, and unlinks under way, by sha: an upload never races the unlink of the same bytes. */
  readonly #writing = new Map<string, number>();
  readonly #unlinking = new Map<string, Promise<void>>();

  async pullItems(projectId: number, family: string, query: PullQuery): Promise<PullPage> {
    const since = query.sinceMillis === undefined ? '' : 'AND ts_ms >= @since';
    const rows = this.#db
      .prepare(
        `SELECT seq, body FROM items WHERE project_id = @projectId AND family = @family AND seq > @after ${since} ORDER BY seq LIMIT @limit`,
      )
      .all({ projectId, family, after: query.after, since: query.sinceMillis, limit: query.limit + 1 }) as Array<{
      seq: number;
      body: string;
    }>;
    const hasMore = rows.length > query.limit;
    return { rows: hasMore ? rows.slice(0, query.limit) : rows, hasMore };
  }

  async blobSize(projectId: number, sha: string): Promise<number | undefined> {
    const row = this.#db.prepare('SELECT size FROM blob_owners WHERE project_id = ? AND sha = ?').get(projectId, sha) as
      { size: number } | undefined;
    return row?.size;
  }

  async readBlob(projectId: number, sha: string, start = 0) {
    const size = await this.blobSize(projectId, sha);
    if (size === undefined) return undefined;
    return { size, stream: createReadStream(this.#blobPath(sha), { start }) };
  }

  async readBlobBytes(projectId: number, sha: string): Promise<Buffer | undefined> {
    if ((await this.blobSize(projectId, sha)) === undefined) return undefined;
    try {
      return await readFile(this.#blobPath(sha));
    } catch (error) {
      // Unlinked since the size was read, by a removal that let go of the project's hold on it.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' && (await this.blobSize(projectId, sha)) === undefined) return undefined;
      throw error;
    }
  }

  async writeBlob(projectId: number, sha: string, source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, maxBytes: number) {
    const meter = new BlobMeter(maxBytes);
    const target = this.#blobPath(sha);
    await ensureDir(join(this.#blobDir, sha.slice(0, 2)), 0o700);
    while (this.#unlinking.has(sha)) await this.#unlinking.get(sha);
    this.#writing.set(sha, (this.#writing.get(sha) ?? 0) + 1);
    try {
      // Temp files beside the blob: one left by a crash is removed when a client retries that sha.
      // Equal bytes under an equal name: replacing a copy already there, or racing one, is harmless.
      await writeStreamAtomic(target, meter.pass(source), { mode: 0o600, beforeRename: () => meter.verify(sha) });
      while (this.#inTransaction) await this.#inTransaction;
      const created =
        this.#db
          .prepare('INSERT INTO blob_owners (project_id, sha, size) VALUES (?, ?, ?) ON CONFLICT DO NOTHING')
          .run(projectId, sha, meter.size).changes > 0;
      return { created, size: meter.size };
    } finally {
      const writers = this.#writing.get(sha)! - 1;
      if (writers === 0) this.#writing.delete(sha);
      else this.#writing.set(sha, writers);
    }
  }

  async query<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    return this.#statement(sql).all(...params) as T[];
  }

  async execute(sql: string, params: readonly unknown[] = []): Promise<number> {
    while (this.#inTransaction) await this.#inTransaction;
    return this.#statement(sql).run(...params).changes;
  }

  async refreshView(projectId: number): Promise<void> {
    // Each batch is one synchronous transaction; between batches other requests get their turn.
    const step = this.#db.transaction(() => {
      const done = this.#db.prepare('SELECT seq FROM view_progress WHERE project_id = ?').get(projectId) as { seq: number } | undefined;
      const rows = this.#db
        .prepare('SELECT seq, family, body, pushed_by FROM items WHERE project_id = ? AND seq > ? ORDER BY seq LIMIT ?')
        .all(projectId, done?.seq ?? 0, VIEW_BATCH) as ItemRow[];
      if (rows.length === 0) return false;
      for (const statement of valuesStatements(foldPlan(projectId, rows))) this.#statement(statement.sql).run(...statement.params);
      return rows.length === VIEW_BATCH;
    });
    for (;;) {
      while (this.#inTransaction) await this.#inTransaction;
      if (!step()) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  async close(): Promise<void> {
    this.#db.close();
  }

  /** Prepared statements by text: the view's few shapes are prepared once. */
  readonly #statements = new Map<string, Database.Statement>();
  #statement(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      if (this.#statements.size > 200) this.#statements.clear();
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #blobPath(sha: string): string {
    return join(this.#blobDir, sha.slice(0, 2), sha);
  }
}
