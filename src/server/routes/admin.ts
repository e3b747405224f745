import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isSlug } from '../../core/remote-url.js';
import { ADMIN_PROJECTS_ROUTE, ADMIN_TOKENS_REVOKE_ROUTE, ADMIN_TOKENS_ROUTE } from '../../protocol/routes.js';
import { bearerToken, hashToken, newToken, secretsEqual, unauthorized } from '../auth.js';
import { isPlainObject } from '../batch.js';
import type { ServiceContext } from '../context.js';
import { appendAudit } from '../privacy/audit.js';
import { invalidBody, ProblemError, type ValidationError } from '../problem.js';
import { DEFAULT_ROLE, isRole, ROLES } from '../roles.js';

const TOKEN_NAME = /^[\x21-\x7e][\x20-\x7e]{0,99}$/;

/**
 * Administration (wire contract "Administration"), authorized by the service's own
 * TRACER_ADMIN_SECRET. Without it the routes exist but refuse with admin_disabled,
 * so `tracer project create` can say exactly what to do.
 */
export function adminRoutes(context: ServiceContext) {
  return async (app: FastifyInstance) => {
    const guard = { onRequest: async (request: FastifyRequest) => requireAdmin(context, request) };

    app.post(ADMIN_PROJECTS_ROUTE, guard, async (request, reply) => {
      const body = requireBody(request.body);
      const errors = [...slugErrors(body, 'org_slug', true), ...slugErrors(body, 'project_slug', true)];
      if (errors.length) throw invalidBody(errors);
      const org = body.org_slug as string;
      const project = body.project_slug as string;
      const created = await context.storage.createProject(org, project);
      return reply.code(created ? 201 : 200).send({ org_slug: org, project_slug: project, created });
    });

    app.post(ADMIN_TOKENS_ROUTE, guard, async (request, reply) => {
      const body = requireBody(request.body);
      const errors = [...slugErrors(body, 'org_slug', true), ...slugErrors(body, 'project_slug', false)];
      if (typeof body.name !== 'string' || !TOKEN_NAME.test(body.name)) {
        errors.push({ index: 0, field: 'name', message: 'is required: 1 to 100 printable ASCII characters, not starting with a space' });
      }
      if (body.role !== undefined && body.role !== null && !isRole(body.role))
        errors.push({ index: 0, field: 'role', message: `must be one of ${ROLES.join(', ')}` });
      if (errors.length) throw invalidBody(errors);
      const role = isRole(body.role) ? body.role : DEFAULT_ROLE;
      const org = body.org_slug as string;
      const project = (body.project_slug as string | null | undefined) ?? null;
      if (project !== null && !(await context.storage.findProject(org, project))) {
        throw new ProblemError(
          404,
          'project_not_found',
          `The project ${org}/${project} is not registered; create it first (POST ${ADMIN_PROJECTS_ROUTE}, or tracer project create).`,
        );
      }
      const token = newToken();
      const scope = project === null ? 'org' : 'project';
      await context.storage.createToken({ hash: hashToken(token), org_slug: org, project_slug: project, name: body.name as string, role });
      await context.storage.transaction((tx) =>
        appendAudit(tx, {
          action: 'token.create',
          actor: { kind: 'admin_secret' },
          org_slug: org,
          project_slug: project,
          target: { token_name: body.name, role, scope },
        }),
      );
      return reply.code(201).send({ token, org_slug: org, project_slug: project, scope, name: body.name, role });
    });

    // Extension (issue 31): every token of this name and scope stops working, and its team view sessions with it.
    app.post(ADMIN_TOKENS_REVOKE_ROUTE, guard, async (request) => {
      const body = requireBody(request.body);
      const errors = [...slugErrors(body, 'org_slug', true), ...slugErrors(body, 'project_slug', false)];
      if (typeof body.name !== 'string' || !TOKEN_NAME.test(body.name)) errors.push({ index: 0, field: 'name', message: 'is required' });
      if (errors.length) throw invalidBody(errors);
      const org = body.org_slug as string;
      const project = (body.project_slug as string | null | undefined) ?? null;
      const revoked = await context.storage.transaction(async (tx) => {
        const scoped = project === null ? 'project_slug IS NULL' : 'project_slug = ?';
        const params = project === null ? [org, body.name] : [org, body.name, project];
        await tx.execute(
          `DELETE FROM web_sessions WHERE token_hash IN (SELECT hash FROM tokens WHERE org_slug = ? AND name = ? AND ${scoped})`,
          params,
        );
        const count = await tx.execute(`DELETE FROM tokens WHERE org_slug = ? AND name = ? AND ${scoped}`, params);
        if (count > 0)
          await appendAudit(tx, {
            action: 'token.revoke',
            actor: { kind: 'admin_secret' },
            org_slug: org,
            project_slug: project,
            target: { token_name: body.name, tokens: count },
          });
        return count;
      });
      return { org_slug: org, project_slug: project, name: body.name, revoked };
    });
  };
}

export async function requireAdmin(context: ServiceContext, request: FastifyRequest): Promise<void> {
  const secret = context.options.adminSecret;
  if (!secret) {
    throw new ProblemError(
      404,
      'admin_disabled',
      'Administration is off on this service; start tracer serve with TRACER_ADMIN_SECRET set to enable it.',
    );
  }
  const given = bearerToken(request);
  if (!given || !secretsEqual(given, secret))
    throw unauthorized('Admin routes need Authorization: Bearer <TRACER_ADMIN_SECRET of this service>.');
}

function requireBody(body: unknown): Record<string, unknown> {
  if (!isPlainObject(body)) throw new ProblemError(422, 'invalid_body', 'The body must be a JSON object.');
  return body;
}

function slugErrors(body: Record<string, unknown>, field: string, required: boolean): ValidationError[] {
  const value = body[field];
  if (value === undefined || value === null) return required ? [{ index: 0, field, message: 'is required' }] : [];
  return isSlug(value) ? [] : [{ index: 0, field, message: 'must match ^[a-z0-9][a-z0-9._-]{0,63}$' }];
}
