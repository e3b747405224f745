import { Readable } from 'node:stream';
import pg from 'pg';
import { BlobMeter, fixedChunks } from '../blob-stream.js';
import { foldPlan, VIEW_BATCH, type ItemRow } from '../team/derive.js';
import { arrayStatements } from '../team/fold-sql.js';
import { MIGRATIONS_TABLE, migrations, POSTGRES_DIALECT } from './migrations.js';
import type { NewToken, ProjectRef, PullPage, PullQuery, SqlTransaction, StoredItem, TokenRecord, TraceStorage } from './types.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS projects (
  id BIGSERIAL PRIMARY KEY,
  org_slug TEXT NOT NULL,
  project_slug TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  UNIQUE (org_slug, project_slug)
);
CREATE TABLE IF NOT EXISTS tokens (
  hash TEXT PRIMARY KEY,
  org_slug TEXT NOT NULL,
  project_slug TEXT,
  name TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS items (
  seq BIGSERIAL PRIMARY KEY,
  project_id BIGINT NOT NULL REFERENCES projects(id),
  family TEXT NOT NULL,
  item_key TEXT NOT NULL,
  ts_ms BIGINT NOT NULL,
  body TEXT NOT NULL,
  UNIQUE (project_id, family, item_key)
);
CREATE INDEX IF NOT EXISTS items_pull ON items (project_id, family, seq);
CREATE TABLE IF NOT EXISTS blobs (
  sha TEXT PRIMARY KEY,
  size BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS blob_chunks (
  sha TEXT NOT NULL,
  idx INTEGER NOT NULL,
  data BYTEA NOT NULL,
  PRIMARY KEY (sha, idx)
);
CREATE TABLE IF NOT EXISTS blob_owners (
  project_id BIGINT NOT NULL REFERENCES projects(id),
  sha TEXT NOT NULL REFERENCES blobs(sha),
  PRIMARY KEY (project_id, sha)
);
`;

/** Advisory-lock namespaces (first key of the two-int form), so they never collide with an application's own. */
const LOCK_MIGRATE = 0x7472_6301;
const LOCK_INGEST = 0x7472_6302;
/** Exported for tests that hold a project's fold back. */
export const LOCK_VIEW = 0x7472_6303;
/** Tables from which forget and retention delete text from conversations (issue 31). */
const PURGED_TABLES = ['items', 'blob_chunks', 'view_summaries', 'view_session_files', 'search_docs'];
/** Blob bytes are stored in pieces of this size, so a read never holds a whole blob in memory. */
const CHUNK_BYTES = 256 * 1024;

/**
 * Shared backend: rows AND blobs in PostgreSQL, so several `tracer serve`
 * processes behind a load balancer share this database and nothing else.
 */
export class PostgresStorage implements TraceStorage {
  readonly backend = 'postgres';
  readonly location: string;
  /** The fold's work is the database server's, not this process's: a push can afford it, and then leaves nothing to catch up. */
  readonly foldsWithUploads = true;
  readonly #pool: pg.Pool;

  private constructor(url: string, pool: pg.Pool) {
    this.location = describeUrl(url);
    this.#pool = pool;
  }

  static async open(url: string): Promise<PostgresStorage> {
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    // An idle client losing its connection must not crash the service; the next query reconnects.
    pool.on('error', () => {});
    const storage = new PostgresStorage(url, pool);
    try {
      await storage.#transaction(async (client) => {
        // Several processes may start at once against an empty database.
        await client.query('SELECT pg_advisory_xact_lock($1, 0)', [LOCK_MIGRATE]);
        await client.query(SCHEMA);
        await client.query(MIGRATIONS_TABLE);
        const applied = new Set((await client.query('SELECT version FROM schema_migrations')).rows.map((row) => Number(row.version)));
        for (const migration of migrations(POSTGRES_DIALECT)) {
          if (applied.has(migration.version)) continue;
          for (const statement of migration.statements) await client.query(statement);
          await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [migration.version]);
        }
      });
    } catch (error) {
      await pool.end();
      throw error;
    }
    return storage;
  }

  async createProject(org: string, project: string): Promise<boolean> {
    const result = await this.#pool.query('INSERT INTO projects (org_slug, project_slug) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
      org,
      project,
    ]);
    return result.rowCount === 1;
  }

  async findProject(org: string, project: string): Promise<ProjectRef | undefined> {
    const result = await this.#pool.query('SELECT id, org_slug, project_slug FROM projects WHERE org_slug = $1 AND project_slug = $2', [
      org,
      project,
    ]);
    const row = result.rows[0];
    return row ? { ...row, id: Number(row.id) } : undefined;
  }

  async createToken(token: NewToken): Promise<void> {
    await this.#pool.query('INSERT INTO tokens (hash, org_slug, project_slug, name, role) VALUES ($1, $2, $3, $4, $5)', [
      token.hash,
      token.org_slug,
      token.project_slug,
      token.name,
      token.role,
    ]);
  }

  async findToken(hash: string): Promise<TokenRecord | undefined> {
    const result = await this.#pool.query('SELECT hash, org_slug, project_slug, name, role FROM tokens WHERE hash = $1', [hash]);
    return result.rows[0];
  }

  async insertItems(projectId: number, family: string, items: readonly StoredItem[], pushedBy?: string): Promise<number> {
    if (items.length === 0) return 0;
    return this.#transaction(async (client) => {
      // Sequence values can commit out of order under concurrent transactions, and a
      // pull cursor `seq > n` would then skip the late one. Serializing a project's
      // inserts makes ingest order equal commit order.
      await client.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK_INGEST, projectId]);
      const result = await client.query(
        `INSERT INTO items (project_id, family, item_key, ts_ms, body, pushed_by, conversation_id, blob_sha)
         SELECT $1, $2, k, t, b, $6, c, s FROM unnest($3::text[], $4::bigint[], $5::text[], $7::text[], $8::text[]) WITH ORDINALITY AS u(k, t, b, c, s, o)
         WHERE NOT EXISTS (SELECT 1 FROM tombstones z WHERE z.project_id = $1 AND z.family = $2 AND z.item_key = k)
         ORDER BY o
         ON CONFLICT DO NOTHING`,
        [
          projectId,
          family,
          items.map((item) => item.key),
          items.map((item) => item.tsMillis),
          items.map((item) => item.body),
          pushedBy ?? null,
          items.map((item) => item.conversationId ?? null),
          items.map((item) => item.blobSha ?? null),
        ],
      );
      return result.rowCount ?? 0;
    });
  }

  async pullItems(projectId: number, family: string, query: PullQuery): Promise<PullPage> {
    const params: unknown[] = [projectId, family, query.after, query.limit + 1];
    let since = '';
    if (query.sinceMillis !== undefined) {
      params.push(query.sinceMillis);
      since = 'AND ts_ms >= $5';
    }
    const result = await this.#pool.query(
      `SELECT seq, body FROM items WHERE project_id = $1 AND family = $2 AND seq > $3 ${since} ORDER BY seq LIMIT $4`,
      params,
    );
    const rows = result.rows.map((row: { seq: string; body: string }) => ({ seq: Number(row.seq), body: row.body }));
    const hasMore = rows.length > query.limit;
    return { rows: hasMore ? rows.slice(0, query.limit) : rows, hasMore };
  }

  async blobSize(projectId: number, sha: string): Promise<number | undefined> {
    const result = await this.#pool.query(
      'SELECT b.size FROM blob_owners o JOIN blobs b ON b.sha = o.sha WHERE o.project_id = $1 AND o.sha = $2',
      [projectId, sha],
    );
    const row = result.rows[0];
    return row ? Number(row.size) : undefined;
  }

  async readBlob(projectId: number, sha: string, start = 0) {
    const size = await this.blobSize(projectId, sha);
    if (size === undefined) return undefined;
    const pool = this.#pool;
    const chunks = Math.ceil(size / CHUNK_BYTES);
    async function* pieces() {
      for (let idx = Math.floor(start / CHUNK_BYTES); idx < chunks; idx++) {
        const result = await pool.query('SELECT data FROM blob_chunks WHERE sha = $1 AND idx = $2', [sha, idx]);
        if (!result.rows[0]) throw new Error(`blob ${sha} is missing piece ${idx}`);
        const data = result.rows[0].data as Buffer;
        yield idx * CHUNK_BYTES < start ? data.subarray(start - idx * CHUNK_BYTES) : data;
      }
    }
    return { size, stream: Readable.from(pieces()) };
  }

  async readBlobBytes(projectId: number, sha: string): Promise<Buffer | undefined> {
    // One statement, so one snapshot: the size and every piece as they stood together. Read as readBlob
    // does (the size, then each piece by a query of its own), a forget that commits in between leaves
    // a blob that has a size and no pieces.
    const result = await this.#pool.query(
      `SELECT b.size, c.data FROM blob_owners o JOIN blobs b ON b.sha = o.sha LEFT JOIN blob_chunks c ON c.sha = o.sha
       WHERE o.project_id = $1 AND o.sha = $2 ORDER BY c.idx`,
      [projectId, sha],
    );
    if (result.rows.length === 0) return undefined;
    const rows = result.rows as Array<{ size: string; data: Buffer | null }>;
    const bytes = Buffer.concat(rows.flatMap((row) => (row.data ? [row.data] : [])));
    if (bytes.length !== Number(rows[0]!.size)) throw new Error(`blob ${sha} holds ${bytes.length} bytes of its ${rows[0]!.size}`);
    return bytes;
  }

  async writeBlob(projectId: number, sha: string, source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, maxBytes: number) {
    const meter = new BlobMeter(maxBytes);
    return this.#transaction(async (client) => {
      const held = (await client.query('SELECT 1 FROM blobs WHERE sha = $1', [sha])).rowCount === 1;
      let idx = 0;
      // Even when the bytes are already held, they are read and hashed: access is
      // granted only to an uploader who proves it has them.
      for await (const piece of fixedChunks(meter.pass(source), CHUNK_BYTES)) {
        if (!held)
          await client.query('INSERT INTO blob_chunks (sha, idx, data) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [sha, idx, piece]);
        idx++;
      }
      meter.verify(sha);
      if (!held) await client.query('INSERT INTO blobs (sha, size) VALUES ($1, $2) ON CONFLICT DO NOTHING', [sha, meter.size]);
      const owner = await client.query('INSERT INTO blob_owners (project_id, sha) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
        projectId,
        sha,
      ]);
      return { created: owner.rowCount === 1, size: meter.size };
    });
  }

  async query<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    const result = await this.#pool.query({ text: numbered(sql), values: params as unknown[], types: NUMBERS });
    return result.rows as T[];
  }

  async execute(sql: string, params: readonly unknown[] = []): Promise<number> {
    const result = await this.#pool.query({ text: numbered(sql), values: params as unknown[], types: NUMBERS });
    return result.rowCount ?? 0;
  }

  async refreshView(projectId: number): Promise<void> {
    for (;;) {
      const more = await this.#transaction(async (client) => {
        // One process folds a project in at a time; another waiting here then finds nothing left.
        await client.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK_VIEW, projectId]);
        // Walk the (project_id, seq) index and stop after one batch. Right after a bulk push the
        // table's statistics are stale, and the planner otherwise reads every row still behind
        // with a bitmap scan and sorts them all, for each batch: EXPLAIN ANALYZE with 215k rows
        // behind, 2.8 s and a 220 MB sort on disk for the first batch against 12 ms this way.
        await client.query('SET LOCAL enable_sort = off; SET LOCAL enable_bitmapscan = off');
        const done = await client.query({
          text: 'SELECT seq FROM view_progress WHERE project_id = $1',
          values: [projectId],
          types: NUMBERS,
        });
        const rows = (
          await client.query({
            text: 'SELECT seq, family, body, pushed_by FROM items WHERE project_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
            values: [projectId, done.rows[0]?.seq ?? 0, VIEW_BATCH],
            types: NUMBERS,
          })
        ).rows as ItemRow[];
        if (rows.length === 0) return false;
        for (const statement of arrayStatements(foldPlan(projectId, rows)))
          await client.query({ text: numbered(statement.sql), values: statement.params });
        return rows.length === VIEW_BATCH;
      });
      if (!more) return;
    }
  }

  async transaction<T>(work: (tx: SqlTransaction) => Promise<T>, options: { lockProject?: number } = {}): Promise<T> {
    return this.#transaction(async (client) => {
      // The ingest lock: no upload of this project commits between what this transaction reads and what it removes.
      if (options.lockProject !== undefined) await client.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK_INGEST, options.lockProject]);
      const run = (sql: string, params: readonly unknown[]) =>
        client.query({ text: numbered(sql), values: params as unknown[], types: NUMBERS });
      return work({
        query: async <R>(sql: string, params: readonly unknown[] = []) => (await run(sql, params)).rows as R[],
        execute: async (sql, params = []) => (await run(sql, params)).rowCount ?? 0,
        forUpdate: ' FOR UPDATE',
        releaseBlobs: async (projectId, shas) => {
          if (shas.length === 0) return;
          await client.query('DELETE FROM blob_owners WHERE project_id = $1 AND sha = ANY($2::text[])', [projectId, shas]);
          // Bytes no project owns any more go with the transaction; an upload racing it waits on the row locks.
          const orphans = await client.query(
            'SELECT sha FROM blobs b WHERE sha = ANY($1::text[]) AND NOT EXISTS (SELECT 1 FROM blob_owners o WHERE o.sha = b.sha) FOR UPDATE',
            [shas],
          );
          const gone = orphans.rows.map((row: { sha: string }) => row.sha);
          if (gone.length === 0) return;
          await client.query('DELETE FROM blob_chunks WHERE sha = ANY($1::text[])', [gone]);
          await client.query('DELETE FROM blobs WHERE sha = ANY($1::text[])', [gone]);
        },
      });
    });
  }

  async purge(): Promise<void> {
    // Deleted tuples leave the tables' pages at VACUUM (no lock that stops reads or writes); the
    // TOAST tables of items and blob_chunks, where large bodies and blob pieces live, go with them.
    for (const table of PURGED_TABLES) await this.#pool.query(`VACUUM ${table}`);
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }

  async #transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => {
        broken = rollbackError;
      });
      throw error;
    } finally {
      client.release(broken);
    }
  }
}

/** int8 (counts, ids, sequence numbers) and numeric (sums) as numbers: the view's figures stay far below 2^53. */
const NUMBERS = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === 20 || oid === 1700
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/** The portable `?` placeholders as PostgreSQL's `$1, $2, ...` (the view's SQL has no `?` inside a literal). */
function numbered(sql: string): string {
  let index = 0;
  return sql.replace(/\?/g, () => `$${++index}`);
}

/** host:port/database, without the user's password, for the start-up line. */
function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `postgres://${parsed.host}${parsed.pathname}`;
  } catch {
    return 'postgres';
  }
}
