// Removing rows for forget and retention (issue 31), both backends, in batches:
// each batch is one transaction that deletes its rows, records their
// tombstones, releases blobs no row names any more, brings the team view in
// line and appends nothing else; the audit entry of the whole run is written by
// the caller. A batch holds the project's ingest lock only for its own rows, so
// uploads wait at most one batch (BENCHMARKS.md, workload 14).
import type { FamilyDefinition } from '../../kernel/families.js';
import type { SqlTransaction, TraceStorage } from '../storage/types.js';
import { refoldAfterRemoval } from '../team/forget-view.js';
import { identityOf, insertTombstones, makeTombstone, signingKey, type RemovalReason, type Tombstone } from './tombstones.js';

/** Rows per transaction: small enough that an upload waits well under 100 ms behind one. */
export const REMOVAL_BATCH = 100;
/** Rows scanned per query while looking for matches the SQL cannot select itself. */
const SCAN_BATCH = 1000;
/** Conversation ids one removal may name (an agent's may be many): beyond, narrow it by date. */
export const MAX_CONVERSATIONS = 10_000;

export interface RemovalCriteria {
  /** The families whose rows may go. */
  families: readonly FamilyDefinition[];
  /** Rows of these conversations only. */
  conversationIds?: readonly string[];
  /** Rows whose ts is before this. */
  beforeMillis?: number;
}

export interface RemovedRow {
  seq: number;
  family: string;
  item_key: string;
  ts_ms: number;
  body: string;
  conversation_id: string | null;
  blob_sha: string | null;
}

export interface RemovalReport {
  /** Rows removed (or, dry, that would be), by family. */
  rows: Record<string, number>;
  /** Blobs whose bytes left the service. */
  blobs: number;
  /** Conversations some removed row belonged to. */
  conversations: Set<string>;
  tombstones: number;
  /** How long each batch held the project's ingest lock, in ms (BENCHMARKS.md, workload 13). */
  batchMs: number[];
}

export function emptyRemoval(): RemovalReport {
  return { rows: {}, blobs: 0, conversations: new Set(), tombstones: 0, batchMs: [] };
}

/** The conversations an agent recorded in this project, from the rows that say which agent wrote them. */
export async function conversationsOfAgent(
  storage: TraceStorage,
  projectId: number,
  families: readonly FamilyDefinition[],
  agent: string,
): Promise<Set<string>> {
  const found = new Set<string>();
  for (const family of families.filter((candidate) => candidate.privacy?.agent)) {
    for await (const rows of scan(storage, projectId, family, { like: [agent] })) {
      for (const row of rows) {
        const record = parse(row.body);
        if (record && family.privacy!.agent!(record) === agent) for (const id of family.privacy!.conversations(record)) found.add(id);
      }
    }
  }
  return found;
}

/** Removes (or, with `dryRun`, counts) every row the criteria select, batch after batch. */
export async function removeRows(
  storage: TraceStorage,
  input: {
    projectId: number;
    criteria: RemovalCriteria;
    reason: RemovalReason;
    by: string;
    dryRun?: boolean;
    report?: RemovalReport;
    /** Every family of the service (tombstones name theirs). */
    families: readonly FamilyDefinition[];
  },
): Promise<RemovalReport> {
  const report = input.report ?? emptyRemoval();
  for (const family of input.criteria.families) {
    let batch: RemovedRow[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const rows = batch;
      batch = [];
      if (input.dryRun) count(report, rows);
      else await removeBatch(storage, input.projectId, rows, input.reason, input.by, input.families, report);
    };
    for await (const rows of select(storage, input.projectId, family, input.criteria)) {
      for (const row of rows) {
        batch.push(row);
        if (batch.length >= REMOVAL_BATCH) await flush();
      }
    }
    await flush();
  }
  return report;
}

function count(report: RemovalReport, rows: readonly RemovedRow[]): void {
  for (const row of rows) {
    report.rows[row.family] = (report.rows[row.family] ?? 0) + 1;
    if (row.conversation_id) report.conversations.add(row.conversation_id);
  }
  report.blobs += new Set(rows.map((row) => row.blob_sha).filter(Boolean)).size;
}

/** The rows of one family the criteria select, a page at a time (seq order). */
async function* select(
  storage: TraceStorage,
  projectId: number,
  family: FamilyDefinition,
  criteria: RemovalCriteria,
): AsyncGenerator<RemovedRow[]> {
  const ids = criteria.conversationIds;
  if (ids !== undefined && ids.length === 0) return;
  // A row belongs to one conversation (column conversation_id) unless its family says it may name several (attribution).
  const byColumn = family.privacy?.kind !== 'attribution';
  const wanted = ids === undefined ? undefined : new Set(ids);
  for await (const rows of scan(storage, projectId, family, {
    beforeMillis: criteria.beforeMillis,
    conversationIds: byColumn ? ids : undefined,
    like: !byColumn && ids !== undefined && ids.length <= 20 ? ids : undefined,
  })) {
    if (byColumn || !wanted) {
      yield rows;
      continue;
    }
    yield rows.filter((row) => {
      const record = parse(row.body);
      return record !== undefined && family.privacy!.conversations(record).some((id) => wanted.has(id));
    });
  }
}

async function* scan(
  storage: TraceStorage,
  projectId: number,
  family: FamilyDefinition,
  filter: { beforeMillis?: number; conversationIds?: readonly string[]; like?: readonly string[] },
): AsyncGenerator<RemovedRow[]> {
  let after = 0;
  for (;;) {
    const where = ['project_id = ?', 'family = ?', 'seq > ?'];
    const params: unknown[] = [projectId, family.name, after];
    if (filter.beforeMillis !== undefined) {
      where.push('ts_ms < ?');
      params.push(filter.beforeMillis);
    }
    if (filter.conversationIds !== undefined) {
      where.push(`conversation_id IN (${filter.conversationIds.map(() => '?').join(', ')})`);
      params.push(...filter.conversationIds);
    }
    if (filter.like !== undefined) {
      where.push(`(${filter.like.map(() => "body LIKE ? ESCAPE '\\'").join(' OR ')})`);
      params.push(...filter.like.map((text) => `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`));
    }
    const rows = await storage.query<RemovedRow>(
      `SELECT seq, family, item_key, ts_ms, body, conversation_id, blob_sha FROM items WHERE ${where.join(' AND ')} ORDER BY seq LIMIT ?`,
      [...params, SCAN_BATCH],
    );
    if (rows.length > 0) yield rows.map((row) => ({ ...row, seq: Number(row.seq), ts_ms: Number(row.ts_ms) }));
    if (rows.length < SCAN_BATCH) return;
    after = Number(rows.at(-1)!.seq);
  }
}

/** One transaction: the rows still there go, their tombstones are recorded, blobs and the team view follow. */
async function removeBatch(
  storage: TraceStorage,
  projectId: number,
  candidates: readonly RemovedRow[],
  reason: RemovalReason,
  by: string,
  families: readonly FamilyDefinition[],
  report: RemovalReport,
): Promise<void> {
  const key = await signingKey(storage);
  const ts = new Date().toISOString();
  await storage.transaction(
    async (tx) => {
      const started = performance.now();
      // Another removal may have taken some of them meanwhile: what this one deletes is what it gets back.
      const rows = (
        await tx.query<RemovedRow>(
          `DELETE FROM items WHERE project_id = ? AND seq IN (${candidates.map(() => '?').join(', ')})
           RETURNING seq, family, item_key, ts_ms, body, conversation_id, blob_sha`,
          [projectId, ...candidates.map((row) => row.seq)],
        )
      ).map((row) => ({ ...row, seq: Number(row.seq), ts_ms: Number(row.ts_ms) }));
      if (rows.length === 0) return;
      const stones = rows.map((row) => tombstoneOf(key, row, families, reason, by, ts));
      report.tombstones += (await insertTombstones(tx, projectId, stones, families)).length;
      report.blobs += await releaseUnnamedBlobs(tx, projectId, rows);
      await refoldAfterRemoval(tx, projectId, rows, storage.backend);
      for (const row of rows) {
        report.rows[row.family] = (report.rows[row.family] ?? 0) + 1;
        if (row.conversation_id) report.conversations.add(row.conversation_id);
      }
      // From the first statement after the lock to the last before the commit.
      report.batchMs.push(performance.now() - started);
    },
    { lockProject: projectId },
  );
}

/** Blobs of removed rows that no row of the project names any more: the project lets go of them. */
export async function releaseUnnamedBlobs(
  tx: SqlTransaction,
  projectId: number,
  rows: ReadonlyArray<{ blob_sha: string | null }>,
): Promise<number> {
  const shas = [...new Set(rows.map((row) => row.blob_sha).filter((sha): sha is string => typeof sha === 'string'))];
  const named = new Set<string>();
  for (let start = 0; start < shas.length; start += 500) {
    const slice = shas.slice(start, start + 500);
    const rows = await tx.query<{ blob_sha: string }>(
      `SELECT DISTINCT blob_sha FROM items WHERE project_id = ? AND blob_sha IN (${slice.map(() => '?').join(', ')})`,
      [projectId, ...slice],
    );
    for (const row of rows) named.add(row.blob_sha);
  }
  const unnamed = shas.filter((sha) => !named.has(sha));
  await tx.releaseBlobs(projectId, unnamed);
  return unnamed.length;
}

function tombstoneOf(
  key: Buffer,
  row: RemovedRow,
  families: readonly FamilyDefinition[],
  reason: RemovalReason,
  by: string,
  ts: string,
): Tombstone {
  const family = families.find((candidate) => candidate.name === row.family)!;
  const record = parse(row.body) ?? {};
  const identity = family.idMember !== null ? { [family.idMember]: row.item_key } : identityOf(record, family);
  return makeTombstone(key, {
    ts,
    family: row.family,
    identity,
    ...(row.conversation_id ? { conversation_id: row.conversation_id } : {}),
    ...(row.blob_sha ? { blob_sha256: row.blob_sha } : {}),
    reason,
    by,
  });
}

export function parse(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
