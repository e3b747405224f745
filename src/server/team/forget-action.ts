// The team view's "forget this conversation" (issue 31), for admin tokens: a
// confirmation page (server-written, no script), then a POST that must come
// from this site and repeat the conversation id. It runs the same forget as
// POST /api/v1/forget: content only (transcripts and summaries), traces and
// attribution kept.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { tokenCovers } from '../auth.js';
import type { ServiceContext } from '../context.js';
import { actorOf } from '../privacy/audit.js';
import { forget } from '../privacy/forget.js';
import { roleAllows } from '../roles.js';
import type { TokenRecord } from '../storage/types.js';
import { escapeHtml } from '../../viewer/pages.js';
import { messagePage, page } from './pages.js';

type Params = { org: string; project: string; session: string };

export function registerForgetAction(
  app: FastifyInstance,
  context: ServiceContext,
  options: { base: string; tokenOf(request: FastifyRequest): TokenRecord; sameOrigin(request: FastifyRequest): boolean },
): void {
  const path = '/p/:org/:project/sessions/:session/forget';
  const sessionPath = (params: Params) =>
    `${options.base}/p/${params.org}/${params.project}/sessions/${encodeURIComponent(params.session)}`;

  /** The project, when the token is an admin that covers it; otherwise a page saying why not. */
  const allowed = async (request: FastifyRequest, reply: FastifyReply) => {
    const params = request.params as Params;
    const token = options.tokenOf(request);
    const project = tokenCovers(token, params.org, params.project)
      ? await context.storage.findProject(params.org, params.project)
      : undefined;
    if (!project) {
      reply
        .code(404)
        .type('text/html; charset=utf-8')
        .send(messagePage(options.base, 'Not found', 'No such project for this token.'));
      return undefined;
    }
    if (!roleAllows(token.role, 'admin')) {
      reply
        .code(403)
        .type('text/html; charset=utf-8')
        .send(
          messagePage(
            options.base,
            'Not allowed',
            `Forgetting needs a token of role admin; token "${token.name}" has role ${token.role} (role_forbids).`,
          ),
        );
      return undefined;
    }
    return { params, token, project };
  };

  app.get(path, async (request, reply) => {
    const ok = await allowed(request, reply);
    if (!ok) return reply;
    const id = escapeHtml(ok.params.session);
    return reply.type('text/html; charset=utf-8').send(
      page(
        options.base,
        'Forget this conversation',
        `<h1>Forget conversation <span class="mono">${id}</span>?</h1>
<p>Its transcript snapshots and summaries leave this service for good: the database, its free pages and the blob store. Every machine drops its copies at its next pull or push. Traces, ledgers and commit links stay, so the AI-share figures do not change. This cannot be undone.</p>
<form method="post" action="${escapeHtml(sessionPath(ok.params))}/forget">
<input type="hidden" name="conversation" value="${id}">
<button type="submit" class="danger">Forget it</button> <a href="${escapeHtml(sessionPath(ok.params))}">Keep it</a>
</form>`,
      ),
    );
  });

  app.post(path, async (request, reply) => {
    if (!options.sameOrigin(request))
      return reply
        .code(403)
        .type('text/html; charset=utf-8')
        .send(
          messagePage(
            options.base,
            'Refused',
            'This form was sent from another site; open the conversation on this service and try again.',
          ),
        );
    const ok = await allowed(request, reply);
    if (!ok) return reply;
    const body = request.body as Record<string, unknown> | undefined;
    if (body?.conversation !== ok.params.session)
      return reply
        .code(400)
        .type('text/html; charset=utf-8')
        .send(
          messagePage(
            options.base,
            'Not confirmed',
            'The confirmation does not name this conversation; open its forget page and confirm again.',
          ),
        );
    await forget(context, ok.project, actorOf(ok.token), {
      conversation_ids: [ok.params.session],
      with_traces: false,
      with_attribution: false,
      dry_run: false,
    });
    return reply.redirect(sessionPath(ok.params), 303);
  });
}
