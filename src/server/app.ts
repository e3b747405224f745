import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { checkQuery, clientErrorHandler, frameworkErrorHandler } from './client-errors.js';
import type { ServiceContext } from './context.js';
import { ProblemError, problemFromError, sendProblem } from './problem.js';
import { adminRoutes } from './routes/admin.js';
import { blobRoutes } from './routes/blobs.js';
import { healthRoutes } from './routes/health.js';
import { privacyRoutes } from './routes/privacy.js';
import { syncRoutes } from './routes/sync.js';
import { UI_PREFIX, uiRoutes } from './routes/ui.js';
import { whoamiRoutes } from './routes/whoami.js';

/** A client's own X-Request-Id is reused when it is harmless; otherwise the service makes one. */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;
/**
 * Fields that name one thing. Node keeps the first of two Authorization or
 * Content-Type headers and drops the other, so a request carrying two tokens
 * would be judged on whichever came first: refuse it instead.
 */
const SINGLE_VALUE_HEADERS = new Set(['host', 'authorization', 'content-type', 'x-tracer-org', 'x-tracer-project', 'x-content-sha256']);

function checkHeaders(raw: { rawHeaders: readonly string[]; httpVersion: string }): void {
  const seen = new Set<string>();
  for (let i = 0; i < raw.rawHeaders.length; i += 2) {
    const name = raw.rawHeaders[i]!.toLowerCase();
    if (!SINGLE_VALUE_HEADERS.has(name)) continue;
    if (seen.has(name)) throw new ProblemError(400, 'invalid_request', `The request carries ${name} more than once; send it once.`);
    seen.add(name);
  }
  // Node would refuse this itself, with an empty 400; checked here so the answer is a problem like every other.
  if (raw.httpVersion === '1.1' && !seen.has('host'))
    throw new ProblemError(400, 'invalid_request', 'An HTTP/1.1 request must carry a Host header; send one.');
}

/** The gateway mount (spec §1): the same API under `/gw/<org>/<project>`. */
export const GATEWAY_PREFIX = '/gw/:gatewayOrg/:gatewayProject';

/**
 * The HTTP surface. Route modules come from the context (families as data,
 * switched-off routes never registered); every error leaves as problem+json.
 */
export function buildApp(context: ServiceContext): FastifyInstance {
  const app: FastifyInstance = Fastify({
    logger: {
      level: context.options.logLevel,
      // Tokens and the admin secret travel in Authorization: never in a log line.
      redact: { paths: ['req.headers.authorization', 'headers.authorization'], censor: '[redacted]' },
    },
    bodyLimit: context.options.bodyMaxBytes,
    // Socket inactivity, not request duration: a slow upload that keeps sending is never cut.
    connectionTimeout: context.options.idleTimeoutMs,
    requestIdHeader: false,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : randomUUID();
    },
    exposeHeadRoutes: false,
    // Items are kept verbatim, "__proto__" members included (a content id covers them);
    // nothing here merges parsed JSON into another object, so they are inert data.
    onProtoPoisoning: 'ignore',
    onConstructorPoisoning: 'ignore',
    return503OnClosing: false,
    // Path parameters of any length reach the routes, which answer invalid_sha / invalid_target
    // (the URL as a whole is still bounded by Node's header size limit).
    routerOptions: { maxParamLength: 16 * 1024 },
    http: { requireHostHeader: false },
    clientErrorHandler: clientErrorHandler(() => app.log),
    frameworkErrors: frameworkErrorHandler,
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    checkHeaders(request.raw);
    checkQuery(request.raw.url ?? '');
  });
  app.setErrorHandler((error, request, reply) => {
    const problem = problemFromError(error);
    if (problem.status >= 500) request.log.error({ err: error }, 'request failed');
    reply.header('x-request-id', request.id);
    return sendProblem(request, reply, problem);
  });
  app.setNotFoundHandler((request, reply) => {
    reply.header('x-request-id', request.id);
    return sendProblem(
      request,
      reply,
      new ProblemError(404, 'not_found', `There is no ${request.method} ${request.url.split('?')[0]} on this service.`),
    );
  });

  app.register(healthRoutes);
  const api = async (scope: FastifyInstance) => {
    // JSON only: text/plain (which Fastify accepts by default) gets 415 like any other type.
    scope.removeContentTypeParser('text/plain');
    // JSON is UTF-8 (RFC 8259) and is read as such: a body declared in another charset would be misread.
    scope.addHook('preParsing', async (request) => {
      const type = request.headers['content-type'];
      const charset =
        typeof type === 'string' && /^application\/json\b/i.test(type) ? /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(type)?.[1] : undefined;
      if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
        throw new ProblemError(
          415,
          'unsupported_media_type',
          `JSON bodies must be UTF-8, not ${charset.slice(0, 40)}; send Content-Type: application/json.`,
        );
      }
    });
    if (context.routeEnabled('whoami')) await scope.register(whoamiRoutes(context));
    await scope.register(syncRoutes(context));
    if (context.routeEnabled('blobs')) await scope.register(blobRoutes(context));
    await scope.register(adminRoutes(context));
    await scope.register(privacyRoutes(context));
  };
  app.register(api);
  app.register(api, { prefix: GATEWAY_PREFIX });
  if (context.routeEnabled('ui')) app.register(uiRoutes(context), { prefix: UI_PREFIX });
  return app;
}
