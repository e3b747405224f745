// A forget on the service (issue 31): POST /api/v1/forget and the team view's
// "forget this conversation" both come here. It is audited twice: when asked
// (the selection) and when done (what went), so a service killed half-way still
// says who started it; the tombstones record each row.
import { AGENT_ID } from '../../core/agent.js';
import type { ForgetRequest } from '../../protocol/privacy.js';
import { memberProblem, timestampMillis } from '../../core/member-checks.js';
import { isPlainObject } from '../batch.js';
import type { ServiceContext } from '../context.js';
import { invalidBody, ProblemError, type ValidationError } from '../problem.js';
import type { ProjectRef } from '../storage/types.js';
import { recordAudit, type AuditActor } from './audit.js';
import { conversationsOfAgent, MAX_CONVERSATIONS, removeRows } from './removal.js';

export async function forget(context: ServiceContext, project: ProjectRef, actor: AuditActor, selector: ForgetSelector) {
  const families = context.families.filter(
    (family) =>
      family.privacy?.kind === 'content' ||
      (family.privacy?.kind === 'trace' && selector.with_traces) ||
      (family.privacy?.kind === 'attribution' && selector.with_attribution),
  );
  let conversationIds = selector.conversation_ids;
  if (selector.agent !== undefined) {
    const ofAgent = await conversationsOfAgent(context.storage, project.id, context.families, selector.agent);
    conversationIds = conversationIds ? conversationIds.filter((id) => ofAgent.has(id)) : [...ofAgent];
    if (conversationIds.length > MAX_CONVERSATIONS)
      throw new ProblemError(
        422,
        'invalid_body',
        `Agent ${selector.agent} has ${conversationIds.length} conversations here, more than one forget takes (${MAX_CONVERSATIONS}); narrow it with before.`,
      );
  }
  const unknown = selector.conversation_ids ? await unknownConversations(context, project, selector.conversation_ids) : [];
  const by = actor.kind === 'token' ? actor.token_name : 'admin secret';
  const where = { org_slug: project.org_slug, project_slug: project.project_slug };
  const target = { selector: describeSelector(selector) };
  if (!selector.dry_run) await recordAudit(context.storage, { action: 'forget', actor, ...where, target });
  const report = await removeRows(context.storage, {
    projectId: project.id,
    criteria: { families, conversationIds, beforeMillis: selector.before === undefined ? undefined : Date.parse(selector.before) },
    reason: 'forget',
    by,
    dryRun: selector.dry_run,
    families: context.families,
  });
  const conversations = [...report.conversations];
  if (!selector.dry_run) {
    await context.storage.purge();
    await recordAudit(context.storage, {
      action: 'forget.done',
      actor,
      ...where,
      target: {
        ...target,
        rows: report.rows,
        blobs: report.blobs,
        conversations: conversations.slice(0, 100),
        conversations_total: conversations.length,
      },
    });
  }
  return {
    dry_run: selector.dry_run,
    removed: report.rows,
    blobs: report.blobs,
    conversations: conversations.slice(0, 1000),
    conversations_total: conversations.length,
    tombstones: report.tombstones,
    unknown_conversations: unknown,
  };
}

/** What a forget selects: the body of POST /api/v1/forget, checked (the protocol's ForgetRequest). */
export type ForgetSelector = ForgetRequest;

export function forgetSelector(body: unknown): ForgetSelector {
  if (!isPlainObject(body)) throw new ProblemError(422, 'invalid_body', 'The body must be a JSON object.');
  const errors: ValidationError[] = [];
  const selector: ForgetSelector = { with_traces: false, with_attribution: false, dry_run: false };
  const ids = body.conversation_ids;
  if (ids !== undefined && ids !== null) {
    if (
      !Array.isArray(ids) ||
      ids.length === 0 ||
      ids.length > MAX_CONVERSATIONS ||
      !ids.every((id) => typeof id === 'string' && id !== '' && id.length <= 512)
    )
      errors.push({ index: 0, field: 'conversation_ids', message: `must be 1 to ${MAX_CONVERSATIONS} non-empty strings` });
    else selector.conversation_ids = [...new Set(ids as string[])];
  }
  if (body.agent !== undefined && body.agent !== null) {
    if (typeof body.agent !== 'string' || !AGENT_ID.test(body.agent))
      errors.push({ index: 0, field: 'agent', message: 'must be an agent id (lowercase letters, digits, dashes)' });
    else selector.agent = body.agent;
  }
  if (body.before !== undefined && body.before !== null) {
    if (typeof body.before !== 'string' || memberProblem('timestamp', body.before))
      errors.push({ index: 0, field: 'before', message: 'must be an ISO-8601 date-time with a time zone' });
    else selector.before = new Date(timestampMillis(body.before)).toISOString();
  }
  for (const flag of ['with_traces', 'with_attribution', 'dry_run'] as const) {
    const value = body[flag];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'boolean') errors.push({ index: 0, field: flag, message: 'must be true or false' });
    else selector[flag] = value;
  }
  if (!errors.length && !selector.conversation_ids && !selector.agent && !selector.before)
    errors.push({ index: 0, field: 'conversation_ids', message: 'is required unless agent or before says what to forget' });
  if (errors.length) throw invalidBody(errors);
  return selector;
}

function describeSelector(selector: ForgetSelector): Record<string, unknown> {
  return {
    ...(selector.conversation_ids
      ? { conversation_ids: selector.conversation_ids.slice(0, 100), conversation_ids_total: selector.conversation_ids.length }
      : {}),
    ...(selector.agent ? { agent: selector.agent } : {}),
    ...(selector.before ? { before: selector.before } : {}),
    with_traces: selector.with_traces,
    with_attribution: selector.with_attribution,
  };
}

/** Ids that name no row of the project, and no row it forgot. */
async function unknownConversations(context: ServiceContext, project: ProjectRef, ids: readonly string[]): Promise<string[]> {
  const unknown: string[] = [];
  for (const id of ids) {
    const [held] = await context.storage.query(
      `SELECT 1 AS held FROM items WHERE project_id = ? AND conversation_id = ?
       UNION ALL SELECT 1 AS held FROM tombstones WHERE project_id = ? AND conversation_id = ? LIMIT 1`,
      [project.id, id, project.id, id],
    );
    if (!held) unknown.push(id);
  }
  return unknown;
}
