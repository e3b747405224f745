import type { FastifyRequest } from 'fastify';
import { isSlug } from '../core/remote-url.js';
import { tokenCovers } from './auth.js';
import { ProblemError } from './problem.js';
import type { ProjectRef, TokenRecord, TraceStorage } from './storage/types.js';

export const ORG_HEADER = 'x-tracer-org';
export const PROJECT_HEADER = 'x-tracer-project';

/** Path parameters of the gateway mount `/gw/:gatewayOrg/:gatewayProject/api/v1/...`. */
export interface GatewayParams {
  gatewayOrg?: string;
  gatewayProject?: string;
}

/**
 * The project a request targets: X-Tracer-Org / X-Tracer-Project headers and/or
 * the gateway mount's path segments (wire contract "Authentication and target").
 */
export function requestTarget(request: FastifyRequest): { org: string; project: string } {
  const params = request.params as GatewayParams;
  const fromPath = params.gatewayOrg !== undefined ? { org: params.gatewayOrg, project: params.gatewayProject ?? '' } : undefined;
  const org = header(request, ORG_HEADER);
  const project = header(request, PROJECT_HEADER);
  const fromHeaders = org !== undefined || project !== undefined ? { org: org ?? '', project: project ?? '' } : undefined;
  if (fromPath && fromHeaders && (fromPath.org !== fromHeaders.org || fromPath.project !== fromHeaders.project)) {
    throw new ProblemError(
      400,
      'target_mismatch',
      `The path names ${fromPath.org}/${fromPath.project} but the X-Tracer-Org/X-Tracer-Project headers name ${fromHeaders.org}/${fromHeaders.project}; send one target.`,
    );
  }
  const target = fromPath ?? fromHeaders;
  if (!target) {
    throw new ProblemError(
      400,
      'target_missing',
      'No target project: send X-Tracer-Org and X-Tracer-Project headers, or use the /gw/<org>/<project> mount.',
    );
  }
  for (const [label, slug] of [
    ['org', target.org],
    ['project', target.project],
  ] as const) {
    if (!isSlug(slug))
      throw new ProblemError(
        400,
        'invalid_target',
        `The ${label} slug "${slug}" does not match ^[a-z0-9][a-z0-9._-]{0,63}$; fix the remote URL.`,
      );
  }
  return target;
}

/** Target, scope and existence, in that order: a token never learns whether another tenant's project exists. */
export async function authorizedProject(request: FastifyRequest, token: TokenRecord, storage: TraceStorage): Promise<ProjectRef> {
  const { org, project } = requestTarget(request);
  if (!tokenCovers(token, org, project)) {
    const scope = token.project_slug === null ? `org ${token.org_slug}` : `project ${token.org_slug}/${token.project_slug}`;
    throw new ProblemError(403, 'forbidden', `The token covers ${scope}, not ${org}/${project}; use a token for this project.`);
  }
  const found = await storage.findProject(org, project);
  if (!found) throw projectNotFound(org, project);
  return found;
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** 404 project_not_found (wire contract): the target project is not registered. */
export function projectNotFound(org: string, project: string): ProblemError {
  return new ProblemError(
    404,
    'project_not_found',
    `The project ${org}/${project} is not registered on this service; register it with tracer project create.`,
  );
}
