// The one storage interface both backends implement (embedded SQLite + blob
// folder, or PostgreSQL for rows and blobs). Routes only ever talk to this, and
// one conformance suite runs against each backend.
import type { Readable } from 'node:stream';

export interface TraceStorage {
  readonly backend: 'sqlite' | 'postgres';
  /** Where the data lives, for the start-up line (never a password). */
  readonly location: string;
  /**
   * Whether an upload folds its rows into the team view before it answers (the
   * fold's work is the database server's), or the fold waits for uploads to pause
   * (it would take the CPU the uploads need). See team/refresher.ts.
   */
  readonly foldsWithUploads: boolean;

  /** True when it was created, false when it already existed. */
  createProject(org: string, project: string): Promise<boolean>;
  findProject(org: string, project: string): Promise<ProjectRef | undefined>;

  createToken(token: NewToken): Promise<void>;
  /** The token whose SHA-256 is `hash`, or undefined. */
  findToken(hash: string): Promise<TokenRecord | undefined>;

  /**
   * Insert-or-ignore by (project, family, key), in the given order, in one
   * transaction; ingest order must equal commit order so that pull cursors never
   * skip a late-committing row. `pushedBy` is the pushing token's name (the team
   * view's "person"). Returns how many rows were new.
   */
  insertItems(projectId: number, family: string, items: readonly StoredItem[], pushedBy?: string): Promise<number>;
  /**
   * Runs `work` as one transaction of portable SQL (see `query`). On SQLite the
   * other requests' writes wait until it ends; on PostgreSQL it holds one
   * connection, and with `lockProject` the project's ingest lock, so no upload
   * of that project commits in between (forget and retention, issue 31).
   */
  transaction<T>(work: (tx: SqlTransaction) => Promise<T>, options?: { lockProject?: number }): Promise<T>;
  /**
   * After rows were deleted: blob bytes nobody owns any more leave the disk
   * (SQLite: the files listed in blob_unlinks; PostgreSQL: already gone with their
   * rows), and deleted rows leave the database files (SQLite: secure_delete is on,
   * then a WAL checkpoint that truncates the log; PostgreSQL: VACUUM of the tables
   * that held them). Safe to call any time; runs again at start-up.
   */
  purge(): Promise<void>;
  /** Rows after the cursor, in ingest order; at most `limit`. */
  pullItems(projectId: number, family: string, query: PullQuery): Promise<PullPage>;

  /** The blob's size when this project holds it. */
  blobSize(projectId: number, sha: string): Promise<number | undefined>;
  /** The blob's bytes from byte `start` (default 0) when this project holds it; `size` is the whole blob's. */
  readBlob(projectId: number, sha: string, start?: number): Promise<{ size: number; stream: Readable } | undefined>;
  /**
   * A small blob's bytes (what a pull puts inline), read at one moment: its size and its bytes as they
   * stood together. Undefined when this project does not hold it, as after a removal (forget, retention)
   * that committed since the row naming it was read.
   */
  readBlobBytes(projectId: number, sha: string): Promise<Buffer | undefined>;
  /**
   * Streams bytes in while hashing; keeps them only when their SHA-256 is `sha`
   * (else ProblemError sha_mismatch) and they stay within `maxBytes` (else
   * ProblemError blob_too_large, thrown as soon as the limit is passed). Then
   * grants the project access. `created` is false when the project already held it.
   */
  writeBlob(
    projectId: number,
    sha: string,
    source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    maxBytes: number,
  ): Promise<{ created: boolean; size: number }>;

  /**
   * Reads for the team view and its sign-in sessions, in SQL both backends
   * run: `?` placeholders, integers and sums returned as numbers.
   */
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** A write in the same portable SQL; returns the rows changed. */
  execute(sql: string, params?: readonly unknown[]): Promise<number>;
  /**
   * Folds the project's rows pushed since the last call into the team view's
   * tables (team/derive.ts), a batch per transaction; one process at a time per project.
   */
  refreshView(projectId: number): Promise<void>;

  close(): Promise<void>;
}

export interface ProjectRef {
  id: number;
  org_slug: string;
  project_slug: string;
}

export interface NewToken {
  hash: string;
  org_slug: string;
  project_slug: string | null;
  name: string;
  role: Role;
}

/** What a token may do, each allowing what the one before it does (src/server/roles.ts). */
export type Role = 'push' | 'read' | 'admin';

export interface TokenRecord {
  hash: string;
  org_slug: string;
  project_slug: string | null;
  name: string;
  role: Role;
}

/** The statements of one transaction, in the portable SQL of TraceStorage.query. */
export interface SqlTransaction {
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  execute(sql: string, params?: readonly unknown[]): Promise<number>;
  /** ` FOR UPDATE` on PostgreSQL (the row stays locked until the transaction ends), nothing on SQLite (it has one writer). */
  readonly forUpdate: string;
  /**
   * The project no longer owns these blobs: bytes no project owns are removed
   * with the transaction (PostgreSQL) or listed for purge() to unlink (SQLite).
   */
  releaseBlobs(projectId: number, shas: readonly string[]): Promise<void>;
}

export interface StoredItem {
  /** The row's identity within its family: its content id, or its identity members joined. */
  key: string;
  /** Its `ts` in milliseconds since the epoch, for `since` filters. */
  tsMillis: number;
  /** The record as JSON text, kept as received. */
  body: string;
  /** The one conversation it belongs to, when it names exactly one (forget and retention find rows by it). */
  conversationId?: string;
  /** The blob it names, for a blob family's row. */
  blobSha?: string;
}

export interface PullQuery {
  /** Ingest sequence number of the last row already seen (0: from the start). */
  after: number;
  limit: number;
  sinceMillis?: number;
}

export interface PullPage {
  rows: Array<{ seq: number; body: string }>;
  hasMore: boolean;
}
