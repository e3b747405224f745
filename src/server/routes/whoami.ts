// `GET /api/v1/auth/whoami`: describes the token itself, whatever target headers
// come with it, so the client can name a mismatch precisely (wire contract "whoami").
import type { FastifyInstance } from 'fastify';
import { WHOAMI_ROUTE } from '../../protocol/routes.js';
import { requireToken, type ServiceContext } from '../context.js';

export function whoamiRoutes(context: ServiceContext) {
  return async (app: FastifyInstance) => {
    app.get(WHOAMI_ROUTE, { onRequest: requireToken(context) }, async (request) => {
      const token = request.tracerToken!;
      return {
        org_slug: token.org_slug,
        project_slug: token.project_slug,
        scope: token.project_slug === null ? 'org' : 'project',
        token_name: token.name,
        // Extension (issue 31): what the token may do.
        role: token.role,
      };
    });
  };
}
