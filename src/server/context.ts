import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FamilyDefinition } from '../kernel/families.js';
import { authenticate } from './auth.js';
import type { ServeOptions } from './options.js';
import { authorizedProject } from './target.js';
import type { ProjectRef, TokenRecord, TraceStorage } from './storage/types.js';
import type { ViewRefresher } from './team/refresher.js';
import type { SecretGate } from '../redact/gate.js';
import type { RetentionPolicy } from './privacy/retention.js';
import type { ProjectRefresher } from './team/project-refresher.js';
import type { PriceTable } from '../cost/prices.js';

/** What every route module receives. */
export interface ServiceContext {
  storage: TraceStorage;
  /** The families this service serves, switched-off routes included (pull must know their blob rules). */
  families: readonly FamilyDefinition[];
  options: ServeOptions;
  /** False for a route switched off with --disable-route: it is then never registered. */
  routeEnabled(name: string): boolean;
  /** Keeps the team view's tables caught up with uploads (routes/ui.ts reads them). */
  view: ViewRefresher;
  /** Refuses uploads that still hold a secret (422 secret_detected); none with --allow-secrets. */
  gate?: SecretGate;
  /** `--retain`: family name → maximum age in ms, for every project (a project's own policy overrides it per family). */
  retention: RetentionPolicy;
  /** Reads the pushed transcripts' token usage into the team view's tables, in the background. */
  usage: ProjectRefresher;
  /** The price table the team view's costs are computed with (team/usage.ts). */
  prices: () => Promise<PriceTable>;
  /** Keeps the team view's search index current with what was folded in (team/search-index.ts). */
  search: ProjectRefresher;
}

declare module 'fastify' {
  interface FastifyRequest {
    tracerToken?: TokenRecord;
    tracerProject?: ProjectRef;
  }
}

/**
 * onRequest guards: they run before the body is read, so a stranger's upload is
 * refused without reading it, and a missing token wins over a malformed body.
 */
export function requireToken(context: ServiceContext) {
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    request.tracerToken = await authenticate(request, context.storage);
  };
}

export function requireProject(context: ServiceContext) {
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    const token = await authenticate(request, context.storage);
    request.tracerToken = token;
    request.tracerProject = await authorizedProject(request, token, context.storage);
  };
}

export function projectOf(request: FastifyRequest): ProjectRef {
  if (!request.tracerProject) throw new Error('route registered without requireProject');
  return request.tracerProject;
}
