// The team view under /ui/: the local viewer's bundle and pages over the
// service's database (team/data-source.ts), behind a sign-in with an org or
// project token. The token is posted once to /ui/sign-in and traded for a
// server-side session whose random id is the only thing in the cookie
// (HttpOnly, SameSite=Strict, Path=/ui). Every page and every /ui/api route
// resolves the session first: 401 without one, and a project the token does
// not cover is unknown (404), exactly like one that does not exist.
import fastifyCookie from '@fastify/cookie';
import fastifyRateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { apiError, registerApi, registerAssets, registerPages, sendError, type ViewerMount } from '../../viewer/app.js';
import { shellPage } from '../../viewer/pages.js';
import { SECURITY_HEADERS } from '../../viewer/security.js';
import { hashToken } from '../auth.js';
import type { ServiceContext } from '../context.js';
import type { TokenRecord } from '../storage/types.js';
import { ServiceDataSource } from '../team/data-source.js';
import { registerForgetAction } from '../team/forget-action.js';
import { messagePage, signInPage } from '../team/pages.js';
import { actorOf, recordAudit } from '../privacy/audit.js';
import { closeWebSession, openWebSession, SESSION_LIFETIME_MS, webSessionToken } from '../team/web-sessions.js';

export const UI_PREFIX = '/ui';
export const SESSION_COOKIE = 'tracer_session';

declare module 'fastify' {
  interface FastifyRequest {
    tracerViewer?: { token: TokenRecord; source: ServiceDataSource };
  }
}

/** Paths that answer without a session: the sign-in form and the bundle it shares with every page. */
const PUBLIC = new Set([`${UI_PREFIX}/sign-in`, `${UI_PREFIX}/sign-out`]);

export function uiRoutes(context: ServiceContext) {
  return async (app: FastifyInstance) => {
    await app.register(fastifyCookie);
    await app.register(fastifyRateLimit, {
      global: false,
      errorResponseBuilder: (_request, limit) =>
        Object.assign(new Error(`Too many sign-in attempts from this address; wait ${limit.after} and try again.`), { statusCode: 429 }),
    });
    // The form posts application/x-www-form-urlencoded; URLSearchParams reads it, nothing else is accepted.
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 4096 }, (_request, body, done) =>
      done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );

    app.addHook('onRequest', async (request, reply) => {
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) reply.header(name, value);
      reply.header('cache-control', 'no-store');
      const path = request.url.split('?')[0]!;
      if (PUBLIC.has(path) || path.startsWith(`${UI_PREFIX}/assets/`)) return undefined;
      const token = await webSessionToken(context.storage, request.cookies[SESSION_COOKIE]);
      if (!token) {
        if (path.startsWith(`${UI_PREFIX}/api/`))
          return apiError(request, reply, 401, 'sign_in_required', `Sign in at ${UI_PREFIX}/sign-in with a token of this service.`);
        return reply.code(401).type('text/html; charset=utf-8').send(signInPage(UI_PREFIX));
      }
      request.tracerViewer = {
        token,
        source: new ServiceDataSource(
          context.storage,
          token,
          context.view,
          (projectId, id) => `${UI_PREFIX}/p/${projectId}/sessions/${encodeURIComponent(id)}/forget`,
          { prices: context.prices, usage: context.usage },
          { base: UI_PREFIX, index: context.search },
        ),
      };
      return undefined;
    });

    registerAssets(app);
    app.get('/sign-in', (_request, reply) => reply.type('text/html; charset=utf-8').send(signInPage(UI_PREFIX)));
    app.post('/sign-in', { config: { rateLimit: { max: context.options.signInsPerMinute, timeWindow: 60_000 } } }, async (request, reply) =>
      signIn(context, request, reply),
    );
    app.post('/sign-out', async (request, reply) => {
      if (!sameOrigin(request)) return refuseCrossSite(reply);
      await closeWebSession(context.storage, request.cookies[SESSION_COOKIE]);
      reply.clearCookie(SESSION_COOKIE, cookieOptions(request));
      return reply.redirect(`${UI_PREFIX}/sign-in`, 303);
    });

    const mount: ViewerMount = {
      project: ':org/:project',
      projectId: (params) => `${params.org}/${params.project}`,
      source: (request) => viewer(request).source,
      shell: (request) => shellPage({ base: UI_PREFIX, team: { signedInAs: describe(viewer(request).token) } }),
    };
    registerApi(app, mount);
    registerPages(app, mount);
    registerForgetAction(app, context, { base: UI_PREFIX, tokenOf: (request) => viewer(request).token, sameOrigin });

    app.setNotFoundHandler((request, reply) => {
      if (request.url.startsWith(`${UI_PREFIX}/api/`)) return apiError(request, reply, 404, 'not_found', 'No such API route.');
      return reply
        .code(404)
        .type('text/html; charset=utf-8')
        .send(messagePage(UI_PREFIX, 'Not found', 'This page does not exist.'));
    });
    app.setErrorHandler((error, request, reply) => {
      const status = (error as { statusCode?: number }).statusCode;
      if (status === 429)
        return reply
          .code(429)
          .type('text/html; charset=utf-8')
          .send(signInPage(UI_PREFIX, (error as Error).message));
      return sendError(error, request, reply);
    });
  };
}

async function signIn(context: ServiceContext, request: FastifyRequest, reply: FastifyReply) {
  if (!sameOrigin(request)) return refuseCrossSite(reply);
  const body = request.body as Record<string, unknown> | undefined;
  const given = typeof body?.token === 'string' ? body.token.trim() : '';
  // Only tokens made with `tracer token create` are in this table: the admin secret is never accepted here.
  const token = given === '' ? undefined : await context.storage.findToken(hashToken(given));
  if (!token) {
    request.log.info('team view sign-in refused: unknown token');
    return reply
      .code(401)
      .type('text/html; charset=utf-8')
      .send(signInPage(UI_PREFIX, 'That token is not known to this service. Paste an org or project token made with tracer token create.'));
  }
  const id = await openWebSession(context.storage, token);
  reply.setCookie(SESSION_COOKIE, id, { ...cookieOptions(request), maxAge: SESSION_LIFETIME_MS / 1000 });
  request.log.info({ token_name: token.name }, 'team view sign-in');
  await recordAudit(context.storage, {
    action: 'ui.sign_in',
    actor: actorOf(token),
    org_slug: token.org_slug,
    project_slug: token.project_slug,
    target: {},
  });
  return reply.redirect(`${UI_PREFIX}/`, 303);
}

function cookieOptions(request: FastifyRequest) {
  return { path: UI_PREFIX, httpOnly: true, sameSite: 'strict' as const, secure: request.protocol === 'https' };
}

/**
 * A form posted from another site is refused, whatever cookie it may bring. Browsers
 * say where a request comes from in Sec-Fetch-Site; without it, Origin must name
 * this host (with Referrer-Policy no-referrer a browser sends "Origin: null", so
 * Origin alone cannot be relied on). A client sending neither is no browser.
 */
function sameOrigin(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string') return site === 'same-origin' || site === 'none';
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}

function refuseCrossSite(reply: FastifyReply) {
  return reply
    .code(403)
    .type('text/html; charset=utf-8')
    .send(messagePage(UI_PREFIX, 'Refused', 'This form was sent from another site; open the sign-in page of this service and try again.'));
}

function viewer(request: FastifyRequest): { token: TokenRecord; source: ServiceDataSource } {
  if (!request.tracerViewer) throw new Error('team view route reached without a session');
  return request.tracerViewer;
}

function describe(token: TokenRecord): string {
  return token.project_slug === null ? `${token.name} (org ${token.org_slug})` : `${token.name} (${token.org_slug}/${token.project_slug})`;
}
