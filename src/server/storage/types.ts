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
  /** Rows after the cursor, in ingest order; at most `limit`. */
  pullItems(projectId: number, family: string, query: PullQuery): Promise<PullPage>;

  /** The blob's size when this project holds it. */
  blobSize(projectId: number, sha: string): Promise<number | undefined>;
  /** The blob's bytes from byte `start` (default 0) when this project holds it; `size` is the whole blob's. */
  readBlob(projectId: number, sha: string, start?: number): Promise<{ size: number; stream: Readable } | undefined>;
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
}

export interface TokenRecord {
  hash: string;
  org_slug: string;
  project_slug: string | null;
  name: string;
}

export interface StoredItem {
  /** The row's identity within its family: its content id, or its identity members joined. */
  key: string;
  /** Its `ts` in milliseconds since the epoch, for `since` filters. */
  tsMillis: number;
  /** The record as JSON text, kept as received. */
  body: string;
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
