// Where the sync and blob routes meet forget, roles and the audit log (issue
// 31), kept out of those routes' own files: a forgotten row is not stored again,
// a `push` token pulls no transcript, and every transcript pulled is audited.
import type { FastifyRequest } from 'fastify';
import type { FamilyDefinition } from '../../kernel/families.js';
import type { PreparedBatch } from '../batch.js';
import type { ServiceContext } from '../context.js';
import { requireRole } from '../roles.js';
import type { ProjectRef } from '../storage/types.js';
import { actorOf, recordAudit } from './audit.js';
import { releaseUnnamedBlobs } from './removal.js';
import { blobForgotten, forgottenKeys } from './tombstones.js';

/** Conversations named per audit entry; the count says how many there were in all. */
const LISTED = 100;

/**
 * Takes the rows this project forgot out of an upload (before anything is
 * written, inline bytes included); returns how many. The insert itself skips
 * tombstoned keys too, so a forget committing meanwhile still wins.
 */
export async function withoutForgotten(
  context: ServiceContext,
  project: ProjectRef,
  family: FamilyDefinition,
  batch: PreparedBatch,
): Promise<number> {
  if (batch.items.length === 0) return 0;
  const forgotten = await forgottenKeys(
    context.storage,
    project.id,
    family.name,
    batch.items.map((item) => item.key),
  );
  if (forgotten.size === 0) return 0;
  const kept = batch.items.filter((item) => !forgotten.has(item.key));
  const keptShas = new Set(kept.map((item) => item.blobSha));
  const dropped = batch.items.length - kept.length;
  batch.items = kept;
  for (const sha of [...batch.inlineBlobs.keys()]) if (!keptShas.has(sha)) batch.inlineBlobs.delete(sha);
  batch.pointers = batch.pointers.filter((pointer) => keptShas.has(pointer.sha));
  return dropped;
}

/** A `push` token may pull what holds no text of a conversation (traces, ledgers, links), never transcripts or summaries. */
export function checkPullRole(request: FastifyRequest, family: FamilyDefinition): void {
  if (family.privacy?.kind === 'content' || family.blob) requireRole(request.tracerToken!, 'read', `Pulling ${family.name}`);
}

/** Every page of transcripts (or of other conversation content: summaries) pulled is a read: one audit entry naming the conversations. */
export async function auditPulled(
  context: ServiceContext,
  request: FastifyRequest,
  project: ProjectRef,
  family: FamilyDefinition,
  records: ReadonlyArray<Record<string, unknown>>,
): Promise<void> {
  if ((!family.blob && family.privacy?.kind !== 'content') || records.length === 0) return;
  const ids = [...new Set(records.flatMap((record) => family.privacy?.conversations(record) ?? []))];
  await recordAudit(context.storage, {
    action: 'transcript.read',
    actor: actorOf(request.tracerToken!),
    org_slug: project.org_slug,
    project_slug: project.project_slug,
    target: {
      via: 'pull',
      family: family.name,
      rows: records.length,
      conversations: ids.slice(0, LISTED),
      conversations_total: ids.length,
    },
  });
}

/** A blob fetched is a transcript read (the rows that name it say which). */
export async function auditBlobRead(context: ServiceContext, request: FastifyRequest, project: ProjectRef, sha: string): Promise<void> {
  const rows = await context.storage.query<{ conversation_id: string | null }>(
    'SELECT DISTINCT conversation_id FROM items WHERE project_id = ? AND blob_sha = ? LIMIT ?',
    [project.id, sha, LISTED],
  );
  await recordAudit(context.storage, {
    action: 'transcript.read',
    actor: actorOf(request.tracerToken!),
    org_slug: project.org_slug,
    project_slug: project.project_slug,
    target: { via: 'blob', blob_sha256: sha, conversations: rows.map((row) => row.conversation_id).filter(Boolean) },
  });
}

/**
 * Inline bytes written just before a forget of their row committed: the row was
 * refused by the insert, so the bytes are named by nothing and go again.
 */
export async function releaseLateForgotten(context: ServiceContext, project: ProjectRef, shas: readonly string[]): Promise<void> {
  const late: string[] = [];
  for (const sha of shas) if (await blobForgotten(context.storage, project.id, sha)) late.push(sha);
  if (late.length === 0) return;
  await context.storage.transaction(
    (tx) =>
      releaseUnnamedBlobs(
        tx,
        project.id,
        late.map((sha) => ({ blob_sha: sha })),
      ),
    {
      lockProject: project.id,
    },
  );
  await context.storage.purge();
}
