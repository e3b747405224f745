import type { FastifyInstance, FastifyRequest } from 'fastify';
import { memberProblem, timestampMillis } from '../../core/member-checks.js';
import type { FamilyDefinition } from '../../kernel/families.js';
import { BLOBS_ROUTE, syncRoute } from '../../protocol/routes.js';
import { prepareBatch } from '../batch.js';
import { projectOf, requireProject, type ServiceContext } from '../context.js';
import { decodeCursor, encodeCursor, pageSize } from '../cursor.js';
import { auditPulled, checkPullRole, releaseLateForgotten, withoutForgotten } from '../privacy/guards.js';
import { ProblemError, type ValidationError } from '../problem.js';
import type { ProjectRef } from '../storage/types.js';
import type { SecretGate } from '../../redact/gate.js';

/** Upload and pull for every enabled family, from its definition alone. */
export function syncRoutes(context: ServiceContext) {
  return async (app: FastifyInstance) => {
    for (const family of context.families) {
      if (!context.routeEnabled(family.name)) continue;
      const guard = { onRequest: requireProject(context) };
      const route = syncRoute(family.name);
      app.post(route, guard, async (request) => upload(context, family, request));
      app.get(route, guard, async (request) => pull(context, family, request));
    }
  };
}

async function upload(context: ServiceContext, family: FamilyDefinition, request: FastifyRequest) {
  const project = projectOf(request);
  const batch = prepareBatch(request.body, family);
  // Rows this project forgot are not stored again (issue 31): answered as `forgotten`.
  const forgotten = await withoutForgotten(context, project, family, batch);
  // Checked before anything is written, so a refused batch changes nothing.
  if (context.gate && family.text) await refuseSecrets(context.gate, family, (request.body as { items: unknown[] }).items);
  const missing: ValidationError[] = [];
  for (const pointer of batch.pointers) {
    const held = batch.inlineBlobs.get(pointer.sha)?.length ?? (await context.storage.blobSize(project.id, pointer.sha));
    if (held === undefined) {
      missing.push({
        index: pointer.index,
        field: family.blob!.shaMember,
        message: `names blob ${pointer.sha}, which this project has not uploaded`,
      });
    } else if (held !== pointer.size) {
      throw new ProblemError(
        422,
        'invalid_item',
        `Item ${pointer.index} says ${pointer.size} bytes but the blob holds ${held}; nothing was stored.`,
        [{ index: pointer.index, field: family.blob!.sizeMember, message: `does not match the held blob's size ${held}` }],
      );
    }
  }
  if (missing.length) {
    throw new ProblemError(
      409,
      'blob_missing',
      `${missing.length} pointer rows name blobs this project does not hold; upload them (POST ${BLOBS_ROUTE}) or send the content inline, then retry.`,
      missing,
    );
  }
  for (const [sha, bytes] of batch.inlineBlobs) await context.storage.writeBlob(project.id, sha, [bytes], Number.POSITIVE_INFINITY);
  const received = (request.body as { items: unknown[] }).items.length;
  const inserted = await context.storage.insertItems(project.id, family.name, batch.items, request.tracerToken?.name);
  if (inserted < batch.items.length) await releaseLateForgotten(context, project, [...batch.inlineBlobs.keys()]);
  // The team view takes the new rows in now or once the uploads pause, by backend (team/refresher.ts).
  if (inserted > 0 && context.routeEnabled('ui')) await context.view.afterUpload(project.id);
  const answer = { received, inserted, duplicates: received - inserted - forgotten };
  // Extension (issue 31), present only when it says something: the answer keeps the contract's shape otherwise.
  return forgotten > 0 ? { ...answer, forgotten } : answer;
}

/** The second gate (src/redact/gate.ts): a batch whose text still holds a secret is refused whole, naming the items. */
async function refuseSecrets(gate: SecretGate, family: FamilyDefinition, items: readonly unknown[]): Promise<void> {
  const inline = new Map<number, Buffer>();
  const member = family.blob?.inlineMember;
  if (member) {
    for (const [index, item] of items.entries()) {
      const value = (item as Record<string, unknown>)[member];
      if (typeof value === 'string') inline.set(index, Buffer.from(value, 'base64'));
    }
  }
  const findings = await gate.findInItems(family, items, inline);
  if (findings.length === 0) return;
  const [first] = findings;
  throw new ProblemError(
    422,
    'secret_detected',
    `${new Set(findings.map((finding) => finding.index)).size} of ${items.length} items still hold what looks like a secret (item ${first!.index}, ${first!.field}, line ${first!.line}: ${first!.rule}); nothing was stored. The client must redact before it uploads: a current tracer push does, and tracer redact --store cleans a local store.`,
    findings.map((finding) => ({
      index: finding.index,
      field: finding.field,
      message: `holds what looks like a secret at line ${finding.line} (rule ${finding.rule}); redact it before uploading`,
    })),
  );
}

async function pull(context: ServiceContext, family: FamilyDefinition, request: FastifyRequest) {
  const project = projectOf(request);
  checkPullRole(request, family);
  const query = request.query as Record<string, string | undefined>;
  const after = decodeCursor(query.after);
  const limit = pageSize(query.limit);
  let sinceMillis: number | undefined;
  if (query.since !== undefined && query.since !== '') {
    if (memberProblem('timestamp', query.since))
      throw new ProblemError(
        400,
        'invalid_query',
        `"since" must be an ISO-8601 date-time with a time zone, e.g. 2024-05-01T00:00:00Z, not "${query.since}".`,
      );
    sinceMillis = timestampMillis(query.since);
  }
  const page = await context.storage.pullItems(project.id, family.name, { after, limit, sinceMillis });
  const items = [];
  for (const row of page.rows) {
    const record = await outgoing(context, family, project, row.seq, JSON.parse(row.body));
    if (record) items.push(record);
  }
  await auditPulled(context, request, project, family, items);
  const last = page.rows.at(-1)?.seq ?? after;
  return { items, next_cursor: encodeCursor(last), has_more: page.hasMore };
}

/**
 * Small content goes back inline, large content as a pointer the client fetches
 * from the blob route; with that route switched off, always inline. Undefined: the
 * row is not served, since a forget or retention run removed it (and its blob)
 * after this page's rows were read; its tombstone tells the client.
 */
async function outgoing(
  context: ServiceContext,
  family: FamilyDefinition,
  project: ProjectRef,
  seq: number,
  record: Record<string, unknown>,
): Promise<Record<string, unknown> | undefined> {
  const blob = family.blob;
  if (!blob) return record;
  const size = record[blob.sizeMember] as number;
  if (size >= blob.inlineBelow && context.routeEnabled('blobs')) return record;
  const bytes = await context.storage.readBlobBytes(project.id, record[blob.shaMember] as string);
  if (bytes) return { ...record, [blob.inlineMember]: bytes.toString('base64') };
  const [held] = await context.storage.query('SELECT 1 AS held FROM items WHERE project_id = ? AND seq = ?', [project.id, seq]);
  return held ? record : undefined;
}
