// Who may forget, set retention and read the audit log (issue 31): an `admin`
// token for its own scope, or the service's TRACER_ADMIN_SECRET for any project.
import type { FastifyRequest } from 'fastify';
import { authenticate, bearerToken, secretsEqual, tokenCovers } from '../auth.js';
import type { ServiceContext } from '../context.js';
import { ProblemError } from '../problem.js';
import { requireRole } from '../roles.js';
import { authorizedProject, projectNotFound, requestTarget } from '../target.js';
import type { ProjectRef, TokenRecord } from '../storage/types.js';
import { actorOf, type AuditActor } from './audit.js';

export interface Authority {
  actor: AuditActor;
  /** Absent for the admin secret. */
  token?: TokenRecord;
}

function isAdminSecret(context: ServiceContext, request: FastifyRequest): boolean {
  const given = bearerToken(request);
  const secret = context.options.adminSecret;
  return Boolean(secret && given && secretsEqual(given, secret));
}

/** The target project, for an admin token that covers it or the admin secret; `what` names the act for role_forbids. */
export async function adminOfProject(
  context: ServiceContext,
  request: FastifyRequest,
  what: string,
): Promise<Authority & { project: ProjectRef }> {
  if (isAdminSecret(context, request)) {
    const { org, project } = requestTarget(request);
    const found = await context.storage.findProject(org, project);
    if (!found) throw projectNotFound(org, project);
    return { actor: { kind: 'admin_secret' }, project: found };
  }
  const token = await authenticate(request, context.storage);
  const project = await authorizedProject(request, token, context.storage);
  requireRole(token, 'admin', what);
  return { actor: actorOf(token), token, project };
}

/** The target org (and, for a project admin token, the one project it may see). */
export async function adminOfOrg(
  context: ServiceContext,
  request: FastifyRequest,
  what: string,
): Promise<Authority & { org: string; onlyProject?: string }> {
  const { org, project } = requestTarget(request);
  if (isAdminSecret(context, request)) {
    // The secret covers every org: a target that is not registered is not found, rather than read as an empty log.
    if (project !== '' && !(await context.storage.findProject(org, project))) throw projectNotFound(org, project);
    return { actor: { kind: 'admin_secret' }, org };
  }
  const token = await authenticate(request, context.storage);
  if (!tokenCovers(token, org, project)) {
    const scope = token.project_slug === null ? `org ${token.org_slug}` : `project ${token.org_slug}/${token.project_slug}`;
    throw new ProblemError(403, 'forbidden', `The token covers ${scope}, not ${org}/${project}; use a token for this project.`);
  }
  requireRole(token, 'admin', what);
  return { actor: actorOf(token), token, org, onlyProject: token.project_slug ?? undefined };
}
