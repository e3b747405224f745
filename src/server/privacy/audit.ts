// The audit log (issue 31): who read, forgot or changed what, never the content.
// Append-only and tamper-evident: each org has its own chain, entry n carries the
// hash of entry n-1, and a head row holds the last n and hash, so an entry edited,
// removed or cut off the end no longer verifies. Appends of one org are serialized
// by locking its head row (SELECT ... FOR UPDATE on PostgreSQL; SQLite has one
// writer), so several service processes on one database keep one chain.
import { auditHash, GENESIS_HASH } from '../../core/audit-chain.js';
import type { SqlTransaction, TokenRecord, TraceStorage } from '../storage/types.js';

/** Who acted: a token, the service's admin secret, or the service itself (retention). */
export type AuditActor =
  { kind: 'token'; token_name: string; role: string; scope: 'org' | 'project' } | { kind: 'admin_secret' } | { kind: 'service' };

export interface AuditEvent {
  /** e.g. `transcript.read`, `forget`, `retention.run`, `token.create`, `token.revoke`, `ui.sign_in`. */
  action: string;
  actor: AuditActor;
  org_slug: string;
  project_slug: string | null;
  /** What was touched: ids, counts, names; never a transcript's or a summary's text. */
  target: Record<string, unknown>;
}

/** The hashed body of an entry: the event, its place in the chain and its time. */
export interface AuditBody extends AuditEvent {
  n: number;
  ts: string;
  prev_hash: string;
}

export function actorOf(token: TokenRecord): AuditActor {
  return { kind: 'token', token_name: token.name, role: token.role, scope: token.project_slug === null ? 'org' : 'project' };
}

/** Appends inside the caller's transaction, so the entry exists exactly when what it records does. */
export async function appendAudit(tx: SqlTransaction, event: AuditEvent, now = new Date()): Promise<AuditBody> {
  await tx.execute('INSERT INTO audit_heads (org_slug, n, hash) VALUES (?, 0, ?) ON CONFLICT DO NOTHING', [event.org_slug, GENESIS_HASH]);
  const [head] = await tx.query<{ n: number; hash: string }>(`SELECT n, hash FROM audit_heads WHERE org_slug = ?${tx.forUpdate}`, [
    event.org_slug,
  ]);
  const body: AuditBody = { ...event, n: Number(head!.n) + 1, ts: now.toISOString(), prev_hash: head!.hash };
  const hash = auditHash(body);
  await tx.execute('INSERT INTO audit_log (org_slug, n, body, hash) VALUES (?, ?, ?, ?)', [
    event.org_slug,
    body.n,
    JSON.stringify(body),
    hash,
  ]);
  await tx.execute('UPDATE audit_heads SET n = ?, hash = ? WHERE org_slug = ?', [body.n, hash, event.org_slug]);
  return body;
}

/** An entry in a transaction of its own (reads: a transcript pulled or opened, a sign-in). */
export function recordAudit(storage: TraceStorage, event: AuditEvent): Promise<AuditBody> {
  return storage.transaction((tx) => appendAudit(tx, event));
}

export interface StoredAuditEntry {
  n: number;
  hash: string;
  /** The entry as stored: parsed here, checked by the verifier (never trusted). */
  entry: unknown;
}

/** One page of an org's chain after entry `after`, and the head. */
export async function auditPage(
  storage: TraceStorage,
  org: string,
  query: { after: number; limit: number; project?: string; sinceIso?: string },
): Promise<{ entries: StoredAuditEntry[]; head: { n: number; hash: string }; hasMore: boolean; last: number }> {
  const rows = await storage.query<{ n: number; body: string; hash: string }>(
    'SELECT n, body, hash FROM audit_log WHERE org_slug = ? AND n > ? ORDER BY n LIMIT ?',
    [org, query.after, query.limit + 1],
  );
  const [head] = await storage.query<{ n: number; hash: string }>('SELECT n, hash FROM audit_heads WHERE org_slug = ?', [org]);
  const hasMore = rows.length > query.limit;
  const entries: StoredAuditEntry[] = [];
  for (const row of rows.slice(0, query.limit)) {
    let entry: unknown;
    try {
      entry = JSON.parse(row.body);
    } catch {
      entry = row.body;
    }
    if (query.project !== undefined && (entry as { project_slug?: unknown })?.project_slug !== query.project) continue;
    if (query.sinceIso !== undefined && String((entry as { ts?: unknown })?.ts ?? '') < query.sinceIso) continue;
    entries.push({ n: Number(row.n), hash: row.hash, entry });
  }
  const last = Number(rows.slice(0, query.limit).at(-1)?.n ?? query.after);
  return { entries, head: head ? { n: Number(head.n), hash: head.hash } : { n: 0, hash: GENESIS_HASH }, hasMore, last };
}
