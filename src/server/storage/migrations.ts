// Schema changes after the first release, numbered and applied once each, in
// order, inside the same transaction that records them (schema_migrations). The
// base tables (projects, tokens, items, blobs) are version 1 and stay in each
// backend's CREATE IF NOT EXISTS schema. The SQL is written once for both
// backends; only the integer and timestamp-text types differ.

export interface Dialect {
  /** 64-bit integer column type. */
  int: string;
  /** Text compared byte-wise, so ISO timestamps sort as time whatever the database's collation. */
  ts: string;
  /** An auto-numbered 64-bit primary key column. */
  serial: string;
  /** A top-level string member of a JSON text column, or NULL. */
  jsonText(column: string, member: string): string;
  /** The search index's tables (issue 32): FTS5 on SQLite, a tsvector with a GIN index on PostgreSQL (team/search-index.ts). */
  searchTables: string[];
}

export const SQLITE_DIALECT: Dialect = {
  int: 'INTEGER',
  ts: 'TEXT',
  serial: 'INTEGER PRIMARY KEY AUTOINCREMENT',
  jsonText: (column, member) => `CASE WHEN json_valid(${column}) THEN json_extract(${column}, '$.${member}') END`,
  searchTables: [
    `CREATE TABLE search_docs (id INTEGER PRIMARY KEY AUTOINCREMENT, project_id INTEGER NOT NULL, kind TEXT NOT NULL, key TEXT NOT NULL,
      version TEXT NOT NULL, ts TEXT, UNIQUE (project_id, kind, key))`,
    // The text, by search_docs.id; unicode61 without diacritics, no stemming (as the local index).
    "CREATE VIRTUAL TABLE search_fts USING fts5(body, tokenize = 'unicode61 remove_diacritics 2')",
    // A forgotten document leaves the index's own pages at once, not at the next merge.
    "INSERT INTO search_fts (search_fts, rank) VALUES ('secure-delete', 1)",
  ],
};
export const POSTGRES_DIALECT: Dialect = {
  int: 'BIGINT',
  ts: 'TEXT COLLATE "C"',
  serial: 'BIGSERIAL PRIMARY KEY',
  // A regular expression, not ::jsonb: jsonb refuses "\u0000", which a stored row may hold.
  jsonText: (column, member) => `substring(${column} from '"${member}"\\s*:\\s*"([^"\\\\]*)"')`,
  searchTables: [
    `CREATE TABLE search_docs (id BIGSERIAL PRIMARY KEY, project_id BIGINT NOT NULL, kind TEXT NOT NULL, key TEXT NOT NULL,
      version TEXT NOT NULL, ts TEXT COLLATE "C", body TEXT NOT NULL, tsv tsvector NOT NULL, UNIQUE (project_id, kind, key))`,
    'CREATE INDEX search_docs_tsv ON search_docs USING GIN (tsv)',
  ],
};

export const MIGRATIONS_TABLE = 'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY)';

/** The team view's tables that a fold fills (issue 22's, in the order they are emptied). */
const FOLDED_VIEW_TABLES = [
  'view_sessions',
  'view_session_models',
  'view_session_files',
  'view_session_traces',
  'view_facets',
  'view_commits',
  'view_commit_parts',
  'view_commit_sessions',
  'view_replaced',
  'view_summaries',
  'view_transcripts',
];

/**
 * Statements that empty the view, `added` tables of later releases included, and its
 * progress last: the next fold then starts again from the project's first row.
 */
function foldViewAgain(...added: string[]): string[] {
  return [...FOLDED_VIEW_TABLES, ...added, 'view_progress'].map((table) => `DELETE FROM ${table}`);
}

/** Version → statements. */
export function migrations(d: Dialect): Array<{ version: number; statements: string[] }> {
  return [
    {
      // The team view (issue 22): who pushed each row, and the tables its pages are answered from.
      version: 2,
      statements: [
        'ALTER TABLE items ADD COLUMN pushed_by TEXT',
        // The view's catch-up reads one project's rows after a watermark, whatever their family.
        'CREATE INDEX IF NOT EXISTS items_project_seq ON items (project_id, seq)',
        `CREATE TABLE view_progress (project_id ${d.int} PRIMARY KEY, seq ${d.int} NOT NULL, traces ${d.int} NOT NULL DEFAULT 0, last_ts ${d.ts})`,
        `CREATE TABLE view_sessions (project_id ${d.int} NOT NULL, conversation_id TEXT NOT NULL, agent TEXT NOT NULL,
          first_ts ${d.ts} NOT NULL, last_ts ${d.ts} NOT NULL, events ${d.int} NOT NULL, person TEXT,
          PRIMARY KEY (project_id, conversation_id))`,
        'CREATE INDEX view_sessions_newest ON view_sessions (project_id, last_ts, conversation_id)',
        `CREATE TABLE view_session_models (project_id ${d.int} NOT NULL, conversation_id TEXT NOT NULL, model TEXT NOT NULL,
          PRIMARY KEY (project_id, conversation_id, model))`,
        'CREATE INDEX view_session_models_model ON view_session_models (project_id, model)',
        `CREATE TABLE view_session_files (project_id ${d.int} NOT NULL, conversation_id TEXT NOT NULL, path TEXT NOT NULL, seq ${d.int} NOT NULL,
          PRIMARY KEY (project_id, conversation_id, path))`,
        `CREATE TABLE view_session_traces (project_id ${d.int} NOT NULL, conversation_id TEXT NOT NULL, seq ${d.int} NOT NULL,
          PRIMARY KEY (project_id, conversation_id, seq))`,
        `CREATE TABLE view_facets (project_id ${d.int} NOT NULL, kind TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (project_id, kind, value))`,
        `CREATE TABLE view_commits (project_id ${d.int} NOT NULL, sha TEXT NOT NULL, ts ${d.ts} NOT NULL, seq ${d.int} NOT NULL,
          ai ${d.int} NOT NULL, human ${d.int} NOT NULL, mixed ${d.int} NOT NULL, files ${d.int} NOT NULL, paths TEXT NOT NULL, person TEXT,
          PRIMARY KEY (project_id, sha))`,
        'CREATE INDEX view_commits_newest ON view_commits (project_id, ts, sha)',
        `CREATE TABLE view_commit_parts (project_id ${d.int} NOT NULL, sha TEXT NOT NULL, agent TEXT NOT NULL, model TEXT NOT NULL,
          kind TEXT NOT NULL, lines ${d.int} NOT NULL, PRIMARY KEY (project_id, sha, agent, model, kind))`,
        `CREATE TABLE view_commit_sessions (project_id ${d.int} NOT NULL, sha TEXT NOT NULL, conversation_id TEXT NOT NULL,
          PRIMARY KEY (project_id, conversation_id, sha))`,
        `CREATE TABLE view_replaced (project_id ${d.int} NOT NULL, sha TEXT NOT NULL, PRIMARY KEY (project_id, sha))`,
        `CREATE TABLE view_summaries (project_id ${d.int} NOT NULL, conversation_id TEXT NOT NULL, ts ${d.ts} NOT NULL, summary TEXT NOT NULL,
          PRIMARY KEY (project_id, conversation_id))`,
        `CREATE TABLE view_transcripts (project_id ${d.int} NOT NULL, conversation_id TEXT NOT NULL, ts ${d.ts} NOT NULL, sha TEXT NOT NULL,
          size ${d.int} NOT NULL, PRIMARY KEY (project_id, conversation_id))`,
        // Signed-in browsers: the SHA-256 of the cookie's random id, never the token itself.
        `CREATE TABLE web_sessions (id_hash TEXT PRIMARY KEY, token_hash TEXT NOT NULL, expires_ms ${d.int} NOT NULL)`,
      ],
    },
    {
      // How many of a project's rows the view has taken in, so that "N of M rows folded in"
      // counts only the rows still behind, never all of them, on every look.
      version: 3,
      statements: [
        `ALTER TABLE view_progress ADD COLUMN folded ${d.int} NOT NULL DEFAULT 0`,
        `UPDATE view_progress SET folded = (SELECT COUNT(*) FROM items i WHERE i.project_id = view_progress.project_id AND i.seq <= view_progress.seq)`,
      ],
    },
    {
      // Data that can be taken back (issue 31): token roles (every token so far keeps what it
      // could do: read), tombstones of forgotten rows and their per-project digest, the
      // audit log's per-org hash chains, retention policies, and blob files left to unlink.
      version: 4,
      statements: [
        "ALTER TABLE tokens ADD COLUMN role TEXT NOT NULL DEFAULT 'read'",
        // Which conversation a row belongs to and which blob it names, so forget and retention find them by index.
        'ALTER TABLE items ADD COLUMN conversation_id TEXT',
        'ALTER TABLE items ADD COLUMN blob_sha TEXT',
        `UPDATE items SET conversation_id = ${d.jsonText('body', 'conversation_id')}, blob_sha = ${d.jsonText('body', 'content_sha256')}`,
        'CREATE INDEX items_conversation ON items (project_id, conversation_id)',
        'CREATE INDEX items_blob ON items (project_id, blob_sha)',
        'CREATE INDEX items_age ON items (project_id, family, ts_ms)',
        // Whether any project still owns a blob, and PostgreSQL's foreign key check when a blob row goes: without it, a scan per blob.
        'CREATE INDEX IF NOT EXISTS blob_owners_sha ON blob_owners (sha)',
        `CREATE TABLE tombstones (seq ${d.serial}, project_id ${d.int} NOT NULL, family TEXT NOT NULL, item_key TEXT NOT NULL,
          id TEXT NOT NULL, body TEXT NOT NULL, conversation_id TEXT, blob_sha TEXT, reason TEXT NOT NULL, ts ${d.ts} NOT NULL,
          UNIQUE (project_id, family, item_key))`,
        'CREATE INDEX tombstones_pull ON tombstones (project_id, seq)',
        'CREATE INDEX tombstones_conversation ON tombstones (project_id, conversation_id)',
        'CREATE INDEX tombstones_blob ON tombstones (project_id, blob_sha)',
        `CREATE TABLE tombstone_heads (project_id ${d.int} PRIMARY KEY, count ${d.int} NOT NULL, digest TEXT NOT NULL)`,
        `CREATE TABLE audit_log (org_slug TEXT NOT NULL, n ${d.int} NOT NULL, body TEXT NOT NULL, hash TEXT NOT NULL, PRIMARY KEY (org_slug, n))`,
        `CREATE TABLE audit_heads (org_slug TEXT PRIMARY KEY, n ${d.int} NOT NULL, hash TEXT NOT NULL)`,
        'CREATE TABLE retention_policies (project_id INTEGER PRIMARY KEY, policy TEXT NOT NULL)',
        'CREATE TABLE blob_unlinks (sha TEXT PRIMARY KEY)',
        'CREATE TABLE service_keys (name TEXT PRIMARY KEY, value TEXT NOT NULL)',
      ],
    },
    {
      // What the agents cost and delivered (issue 33): tokens and cost per conversation,
      // turn, model and day, read from the pushed transcripts (team/usage.ts); the state of
      // that reading per conversation; the lines the agents' edits wrote. The view is folded again from the first row, so that the traces
      // folded before this release count their written lines too.
      version: 5,
      statements: [
        `CREATE TABLE view_usage (project_id ${d.int} NOT NULL, conversation_id TEXT NOT NULL, turn ${d.int} NOT NULL, model TEXT NOT NULL,
          day TEXT NOT NULL, ts ${d.ts}, requests ${d.int} NOT NULL, input ${d.int} NOT NULL, output ${d.int} NOT NULL,
          cache_write ${d.int} NOT NULL, cache_read ${d.int} NOT NULL, reasoning ${d.int} NOT NULL, cache_write_1h ${d.int} NOT NULL,
          cost_nusd ${d.int} NOT NULL, unpriced ${d.int} NOT NULL, PRIMARY KEY (project_id, conversation_id, turn, model, day))`,
        'CREATE INDEX view_usage_day ON view_usage (project_id, day)',
        `CREATE TABLE view_usage_state (project_id ${d.int} NOT NULL, conversation_id TEXT NOT NULL, sha TEXT NOT NULL, prices TEXT NOT NULL,
          usage TEXT NOT NULL, source TEXT, reason TEXT, refused TEXT NOT NULL, PRIMARY KEY (project_id, conversation_id))`,
        `CREATE TABLE view_written (project_id ${d.int} NOT NULL, conversation_id TEXT NOT NULL, model TEXT NOT NULL, day TEXT NOT NULL,
          lines ${d.int} NOT NULL, PRIMARY KEY (project_id, conversation_id, model, day))`,
        ...foldViewAgain(),
      ],
    },
    {
      // Search (issue 32): each commit's subject, author name and committed time as its commit
      // link names them, and the search index of the pushed transcripts, summaries and commit
      // subjects (team/search-index.ts keeps it current after each fold). The view is folded
      // again from the first row, so the links stored before this release name their commits,
      // and the index is then built from what is stored.
      version: 6,
      statements: [
        `CREATE TABLE view_commit_names (project_id ${d.int} NOT NULL, sha TEXT NOT NULL, seq ${d.int} NOT NULL, subject TEXT NOT NULL,
          author_name TEXT, committed_at ${d.ts}, PRIMARY KEY (project_id, sha))`,
        ...d.searchTables,
        ...foldViewAgain('view_written'),
      ],
    },
    {
      // Landed lines counted once (issue 33): a squash or a cherry-pick made with the hooks on gets
      // a ledger of its own that holds the same trace lines as the branch commit, on another
      // history, where claims allow it. The traces each ledger uses and its parents let the cost
      // page tell such a copy from a later commit of the same history (team/cost.ts). The view is
      // folded again from the first row, so the ledgers stored before this release fill them.
      version: 7,
      statements: [
        `CREATE TABLE view_commit_traces (project_id ${d.int} NOT NULL, sha TEXT NOT NULL, trace_id TEXT NOT NULL,
          PRIMARY KEY (project_id, trace_id, sha))`,
        'CREATE INDEX view_commit_traces_sha ON view_commit_traces (project_id, sha)',
        `CREATE TABLE view_commit_parents (project_id ${d.int} NOT NULL, sha TEXT NOT NULL, parent TEXT NOT NULL,
          PRIMARY KEY (project_id, sha, parent))`,
        ...foldViewAgain('view_written', 'view_commit_names', 'view_commit_traces', 'view_commit_parents'),
      ],
    },
  ];
}
