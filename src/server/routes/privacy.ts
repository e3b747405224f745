// Forget, tombstones, retention and the audit log (issue 31; docs/protocol.md,
// "Taking data back"). Removal itself is privacy/removal.ts; this file checks
// the requests and says what happened.
import type { FastifyInstance } from 'fastify';
import { memberProblem, timestampMillis } from '../../core/member-checks.js';
import type { FamilyDefinition } from '../../kernel/families.js';
import { ITEMS_PER_REQUEST } from '../../protocol/limits.js';
import { AUDIT_ROUTE, FORGET_ROUTE, RETENTION_ROUTE, RETENTION_RUN_ROUTE, TOMBSTONES_ROUTE } from '../../protocol/routes.js';
import { isPlainObject } from '../batch.js';
import { projectOf, requireProject, type ServiceContext } from '../context.js';
import { decodeCursor, encodeCursor, pageSize } from '../cursor.js';
import { appendAudit, auditPage, recordAudit } from '../privacy/audit.js';
import { adminOfOrg, adminOfProject } from '../privacy/authority.js';
import { forget, forgetSelector } from '../privacy/forget.js';
import { releaseUnnamedBlobs, type RemovedRow } from '../privacy/removal.js';
import { formatAge, parseAge, projectPolicy, runRetention } from '../privacy/retention.js';
import { EMPTY_DIGEST, insertTombstones, signingKey, tombstoneItemKey, tombstoneProblem, type Tombstone } from '../privacy/tombstones.js';
import { invalidBody, ProblemError, type ValidationError } from '../problem.js';
import type { ProjectRef } from '../storage/types.js';
import { refoldAfterRemoval } from '../team/forget-view.js';

export function privacyRoutes(context: ServiceContext) {
  return async (app: FastifyInstance) => {
    if (context.routeEnabled('forget'))
      app.post(FORGET_ROUTE, async (request) => {
        const { actor, project } = await adminOfProject(context, request, 'Forgetting');
        return forget(context, project, actor, forgetSelector(request.body));
      });

    if (context.routeEnabled('tombstones')) registerTombstoneRoutes(app, context);

    app.get(RETENTION_ROUTE, async (request) => {
      const { project } = await adminOfProject(context, request, 'Reading the retention policy');
      const own = await projectPolicy(context.storage, project.id);
      return { service: ages(context.retention), project: ages(own), effective: ages({ ...context.retention, ...own }) };
    });

    app.put(RETENTION_ROUTE, async (request) => {
      const { actor, project } = await adminOfProject(context, request, 'Setting retention');
      const policy = retentionBody(request.body, context.families);
      await context.storage.transaction(async (tx) => {
        await tx.execute('DELETE FROM retention_policies WHERE project_id = ?', [project.id]);
        if (Object.keys(policy).length)
          await tx.execute('INSERT INTO retention_policies (project_id, policy) VALUES (?, ?)', [project.id, JSON.stringify(policy)]);
        await appendAudit(tx, {
          action: 'retention.set',
          actor,
          org_slug: project.org_slug,
          project_slug: project.project_slug,
          target: { retain: ages(policy) },
        });
      });
      return { service: ages(context.retention), project: ages(policy), effective: ages({ ...context.retention, ...policy }) };
    });

    app.post(RETENTION_RUN_ROUTE, async (request) => {
      const { project } = await adminOfProject(context, request, 'Running retention');
      const result = await runRetention({
        storage: context.storage,
        families: context.families,
        servicePolicy: context.retention,
        projectId: project.id,
      });
      request.log.info(
        { retention: { projects: result.projects, rows: result.rows, blobs: result.blobs, ms: result.ms } },
        'retention run (asked for)',
      );
      const report = result.reports.get(project.id);
      return {
        removed: report?.rows ?? {},
        blobs: report?.blobs ?? 0,
        conversations_total: report?.conversations.size ?? 0,
        ms: result.ms,
        // How long each batch held the project's ingest lock: the longest, and the median.
        batches: report?.batchMs.length ?? 0,
        longest_batch_ms: Math.round(Math.max(0, ...(report?.batchMs ?? []))),
        median_batch_ms: Math.round([...(report?.batchMs ?? [])].sort((a, b) => a - b)[Math.floor((report?.batchMs.length ?? 0) / 2)] ?? 0),
      };
    });

    app.get(AUDIT_ROUTE, async (request) => {
      const { org, onlyProject } = await adminOfOrg(context, request, 'Reading the audit log');
      const query = request.query as Record<string, string | undefined>;
      const after = query.after === undefined || query.after === '' ? 0 : Number(query.after);
      if (!Number.isSafeInteger(after) || after < 0)
        throw new ProblemError(400, 'invalid_cursor', '"after" must be the next_cursor of the previous page, or absent.');
      let since: string | undefined;
      if (query.since) {
        if (memberProblem('timestamp', query.since))
          throw new ProblemError(400, 'invalid_query', `"since" must be an ISO-8601 date-time with a time zone, not "${query.since}".`);
        since = new Date(timestampMillis(query.since)).toISOString();
      }
      const page = await auditPage(context.storage, org, { after, limit: pageSize(query.limit), project: onlyProject, sinceIso: since });
      return {
        org_slug: org,
        scope: onlyProject === undefined ? 'org' : 'project',
        entries: page.entries,
        // A project admin sees its project's entries only: the chain (and its head) is the org's.
        head: onlyProject === undefined ? page.head : null,
        next_cursor: String(page.last),
        has_more: page.hasMore,
      };
    });
  };
}

/** Applies tombstones this service signed: the rows they name go (if a restored backup brought them back). */
async function applyTombstones(
  context: ServiceContext,
  project: ProjectRef,
  stones: readonly Tombstone[],
): Promise<{ applied: number; removed: number }> {
  let applied = 0;
  let removed = 0;
  for (let start = 0; start < stones.length; start += 100) {
    const slice = stones.slice(start, start + 100);
    await context.storage.transaction(
      async (tx) => {
        const rows: RemovedRow[] = [];
        for (const stone of slice) {
          const family = context.families.find((candidate) => candidate.name === stone.family) as FamilyDefinition;
          const found = await tx.query<RemovedRow>(
            'SELECT seq, family, item_key, ts_ms, body, conversation_id, blob_sha FROM items WHERE project_id = ? AND family = ? AND item_key = ?',
            [project.id, stone.family, tombstoneItemKey(stone, family)],
          );
          rows.push(...found.map((row) => ({ ...row, seq: Number(row.seq), ts_ms: Number(row.ts_ms) })));
        }
        if (rows.length)
          await tx.execute(`DELETE FROM items WHERE project_id = ? AND seq IN (${rows.map(() => '?').join(', ')})`, [
            project.id,
            ...rows.map((row) => row.seq),
          ]);
        applied += (await insertTombstones(tx, project.id, slice, context.families)).length;
        removed += rows.length;
        const named = [...rows, ...slice.map((stone) => ({ blob_sha: stone.blob_sha256 ?? null }))];
        await releaseUnnamedBlobs(tx, project.id, named);
        await refoldAfterRemoval(tx, project.id, rows, context.storage.backend);
      },
      { lockProject: project.id },
    );
  }
  return { applied, removed };
}

function retentionBody(body: unknown, families: readonly FamilyDefinition[]): Record<string, number> {
  const retain = isPlainObject(body) ? body.retain : undefined;
  if (!isPlainObject(retain))
    throw new ProblemError(
      422,
      'invalid_body',
      'The body must be {"retain": {"<family>": "<age>", ...}}, e.g. {"retain": {"conversations": "90d"}}; {} clears the project\'s own policy.',
    );
  const policy: Record<string, number> = {};
  const errors: ValidationError[] = [];
  for (const [name, age] of Object.entries(retain)) {
    const ms = typeof age === 'string' ? parseAge(age) : undefined;
    if (!families.some((family) => family.name === name))
      errors.push({ index: 0, field: `retain.${name}`, message: 'names no family of this service' });
    else if (ms === undefined) errors.push({ index: 0, field: `retain.${name}`, message: 'must be an age such as 90d, 12h, 4w or 1y' });
    else policy[name] = ms;
  }
  if (errors.length) throw invalidBody(errors);
  return policy;
}

function ages(policy: Record<string, number>): Record<string, string> {
  return Object.fromEntries(Object.entries(policy).map(([name, ms]) => [name, formatAge(ms)]));
}

/** Tombstones out and back in (`--disable-route tombstones` answers 404, as a service from before them). */
function registerTombstoneRoutes(app: FastifyInstance, context: ServiceContext): void {
  const member = { onRequest: requireProject(context) };
  app.get(TOMBSTONES_ROUTE, member, async (request) => {
    const project = projectOf(request);
    const query = request.query as Record<string, string | undefined>;
    const after = decodeCursor(query.after);
    const limit = pageSize(query.limit);
    const rows = await context.storage.query<{ seq: number; body: string }>(
      'SELECT seq, body FROM tombstones WHERE project_id = ? AND seq > ? ORDER BY seq LIMIT ?',
      [project.id, after, limit + 1],
    );
    const [head] = await context.storage.query<{ count: number; digest: string }>(
      'SELECT count, digest FROM tombstone_heads WHERE project_id = ?',
      [project.id],
    );
    const page = rows.slice(0, limit);
    return {
      items: page.map((row) => JSON.parse(row.body) as Tombstone),
      next_cursor: encodeCursor(Number(page.at(-1)?.seq ?? after)),
      has_more: rows.length > limit,
      count: Number(head?.count ?? 0),
      digest: head?.digest ?? EMPTY_DIGEST,
    };
  });

  // A client tells the service what it forgot (a service restored from an older backup): only tombstones it signed.
  app.post(TOMBSTONES_ROUTE, member, async (request) => {
    const project = projectOf(request);
    const items = (isPlainObject(request.body) && Array.isArray(request.body.items) ? request.body.items : undefined) as
      unknown[] | undefined;
    if (!items) throw new ProblemError(422, 'invalid_body', 'The body must be a JSON object {"items": [...]}.');
    if (items.length > ITEMS_PER_REQUEST)
      throw new ProblemError(
        413,
        'too_many_items',
        `The request carries ${items.length} items; send at most ${ITEMS_PER_REQUEST} per request.`,
      );
    const key = await signingKey(context.storage);
    const errors: ValidationError[] = [];
    items.forEach((item, index) => {
      const problem = tombstoneProblem(key, item, context.families);
      if (problem) errors.push({ index, field: '', message: problem });
    });
    if (errors.length)
      throw new ProblemError(
        422,
        'invalid_item',
        `${errors.length} of ${items.length} tombstones are not this service's; nothing was applied.`,
        errors,
      );
    const result = await applyTombstones(context, project, items as Tombstone[]);
    if (result.applied > 0) {
      await context.storage.purge();
      await recordAudit(context.storage, {
        action: 'tombstones.apply',
        actor: {
          kind: 'token',
          token_name: request.tracerToken!.name,
          role: request.tracerToken!.role,
          scope: request.tracerToken!.project_slug === null ? 'org' : 'project',
        },
        org_slug: project.org_slug,
        project_slug: project.project_slug,
        target: { tombstones: result.applied, rows: result.removed },
      });
    }
    return { received: items.length, ...result };
  });
}
