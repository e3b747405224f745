// The viewer's routes, in Fastify: the page shell for every deep link (the UI
// bundle renders it), the bundle itself, and a read-only JSON API over a
// ViewerDataSource. Every request passes the gate first (Host, then token or
// cookie). Only GET exists: nothing here can change the store. It runs on the
// node:http server that server.ts already listens on.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../core/package-root.js';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { isTracerError } from '../core/errors.js';
import { PROBLEM_CONTENT_TYPE, problemBody } from '../server/problem.js';
import type { ListQuery, ViewerDataSource } from './data-source.js';
import { SECURITY_HEADERS, type Gate } from './security.js';
import { notFoundPage, plainPage, shellPage } from './pages.js';

export type RequestHandler = (request: IncomingMessage, response: ServerResponse) => void;

// From the sources (tests, tsx) and from the build alike: npm run build puts the bundle there.
const ASSETS_DIR = join(PACKAGE_ROOT, 'dist', 'viewer', 'assets');
const ASSETS: Record<string, string> = { 'app.js': 'text/javascript; charset=utf-8', 'app.css': 'text/css; charset=utf-8' };

export async function buildApp(options: { server: Server; gate: Gate; source: ViewerDataSource }) {
  let handler: ((...args: never[]) => void) | undefined;
  const app = Fastify({
    logger: false,
    routerOptions: { maxParamLength: 4096 },
    return503OnClosing: true,
    serverFactory: (handle) => {
      handler = handle as never;
      return options.server;
    },
  });
  app.addHook('onRequest', async (request, reply) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) reply.header(name, value);
    reply.header('cache-control', 'no-store');
    return guard(options.gate, request, reply);
  });
  registerAssets(app);
  const mount: ViewerMount = {
    project: ':project',
    projectId: (params) => params.project!,
    source: () => options.source,
    shell: () => shellPage(),
  };
  registerApi(app, mount);
  registerPages(app, mount);
  app.setNotFoundHandler((request, reply) => {
    if (request.url.startsWith('/api/')) return apiError(request, reply, 404, 'not_found', 'No such API route.');
    return reply.code(404).type('text/html; charset=utf-8').send(notFoundPage());
  });
  app.setErrorHandler((error, request, reply) => sendError(error, request, reply));
  await app.ready();
  return { app, handle: handler as unknown as RequestHandler, close: () => app.close() };
}

async function guard(gate: Gate, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
  if (!gate.hostAllowed(request.headers.host)) {
    return reply
      .code(421)
      .type('text/html; charset=utf-8')
      .send(plainPage('Wrong host', 'This viewer only answers on the address it printed.'));
  }
  const url = new URL(request.url, 'http://viewer');
  const offered = url.searchParams.get('token');
  if (offered !== null && gate.tokenMatches(offered)) {
    url.searchParams.delete('token');
    reply.header('set-cookie', gate.setCookie());
    return reply.redirect(`${url.pathname}${url.search}`, 303);
  }
  if (gate.tokenMatches(gate.cookieFrom(request.headers.cookie))) return undefined;
  if (request.url.startsWith('/api/')) return apiError(request, reply, 401, 'viewer_token_required', 'Open the URL tracer view printed.');
  return reply
    .code(401)
    .type('text/html; charset=utf-8')
    .send(
      plainPage(
        'Open the printed link',
        'This viewer needs the link tracer view printed (it carries a one-time token). Run tracer view again if you lost it.',
      ),
    );
}

export function registerAssets(app: FastifyInstance): void {
  const cache = new Map<string, Buffer>();
  app.get<{ Params: { file: string } }>('/assets/:file', async (request, reply) => {
    const type = Object.hasOwn(ASSETS, request.params.file) ? ASSETS[request.params.file] : undefined;
    if (type === undefined) return reply.code(404).send();
    let body = cache.get(request.params.file);
    if (!body) {
      body = await readFile(join(ASSETS_DIR, request.params.file)).catch(() => undefined);
      if (!body) return reply.code(500).type('text/plain').send('The viewer UI is not built; run npm run build in the tracer folder.');
      cache.set(request.params.file, body);
    }
    return reply.type(type).header('cache-control', 'private, max-age=300').send(body);
  });
}

/**
 * Where the API and the pages find a project and a data source: the local
 * viewer names a project by one segment and has one source; the trace
 * service's team view names `<org>/<project>` and a source per signed-in token.
 */
export interface ViewerMount {
  /** Route pattern of a project id: `:project`, or `:org/:project`. */
  project: string;
  projectId(params: Record<string, string>): string;
  source(request: FastifyRequest): ViewerDataSource;
  /** The page shell every deep link answers with. */
  shell(request: FastifyRequest): string;
}

type Params = Record<string, string>;

export function registerApi(app: FastifyInstance, mount: ViewerMount): void {
  const base = `/api/p/${mount.project}`;
  const id = (request: FastifyRequest) => mount.projectId(request.params as Params);
  app.get('/api/projects', (request) => mount.source(request).projects());
  app.get(`${base}/stats`, (request) => mount.source(request).projectStats(id(request)));
  app.get(`${base}/facets`, (request) => mount.source(request).facets(id(request)));
  app.get(`${base}/share`, async (request, reply) => {
    const source = mount.source(request);
    if (!source.share) return apiError(request, reply, 404, 'not_found', 'This viewer has no share breakdown.');
    return source.share(id(request));
  });
  app.get(`${base}/cost`, async (request, reply) => {
    const source = mount.source(request);
    if (!source.cost) return apiError(request, reply, 404, 'not_found', 'This viewer has no cost breakdown; tracer stats --cost has it.');
    return source.cost(id(request));
  });
  app.get(`${base}/progress`, async (request, reply) => {
    const source = mount.source(request);
    if (!source.progress) return apiError(request, reply, 404, 'not_found', 'This viewer is never behind its data.');
    return source.progress(id(request));
  });
  app.get<{ Querystring: Record<string, string> }>(`${base}/search`, async (request, reply) => {
    const source = mount.source(request);
    if (!source.search) return apiError(request, reply, 404, 'not_found', 'This viewer has no search; tracer search has it.');
    const given = request.query.limit;
    const limit = given === undefined ? 20 : /^\d{1,3}$/.test(given) ? Number(given) : NaN;
    if (!(limit >= 1 && limit <= 100))
      return apiError(request, reply, 400, 'invalid_query', `limit takes a number from 1 to 100, not "${given}".`);
    return source.search(id(request), typeof request.query.q === 'string' ? request.query.q : '', limit);
  });
  app.get<{ Querystring: Record<string, string> }>(`${base}/sessions`, (request) =>
    mount.source(request).sessions(id(request), listQuery(request.query)),
  );
  app.get<{ Querystring: Record<string, string> }>(`${base}/commits`, (request) =>
    mount.source(request).commits(id(request), listQuery(request.query)),
  );
  app.get<{ Params: { session: string } }>(`${base}/sessions/:session`, (request) =>
    mount.source(request).session(id(request), request.params.session),
  );
  app.get<{ Params: { session: string } }>(`${base}/sessions/:session/usage`, (request) =>
    mount.source(request).usage(id(request), request.params.session),
  );
  app.get<{ Params: { session: string }; Querystring: { cursor?: string; limit?: string } }>(
    `${base}/sessions/:session/transcript`,
    (request) => {
      const limit = Math.min(500, Math.max(1, Number(request.query.limit) || 100));
      return mount.source(request).transcript(id(request), request.params.session, request.query.cursor, limit);
    },
  );
  app.get<{ Params: { sha: string } }>(`${base}/commits/:sha`, (request) => mount.source(request).commit(id(request), request.params.sha));
  app.get<{ Params: { '*': string }; Querystring: { rev?: string } }>(`${base}/blame/*`, (request) =>
    mount.source(request).blame(id(request), request.params['*'], request.query.rev || undefined),
  );
}

export function registerPages(app: FastifyInstance, mount: ViewerMount): void {
  app.get('/', (request, reply) => reply.type('text/html; charset=utf-8').send(mount.shell(request)));
  const projectPage = async (request: FastifyRequest, reply: FastifyReply) => {
    // An unknown project is a real 404; unknown sessions and commits are told by the API, which the page asks anyway.
    const wanted = mount.projectId(request.params as Params);
    const known = (await mount.source(request).projects()).some((project) => project.id === wanted);
    return reply
      .code(known ? 200 : 404)
      .type('text/html; charset=utf-8')
      .send(mount.shell(request));
  };
  const base = `/p/${mount.project}`;
  for (const path of [base, `${base}/sessions/:session`, `${base}/commits/:sha`, `${base}/blame/*`]) app.get(path, projectPage);
}

function listQuery(query: Record<string, string>): ListQuery {
  const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, 200) : undefined);
  const number = (value: unknown) => (typeof value === 'string' && /^\d{1,7}$/.test(value) ? Number(value) : undefined);
  return {
    agent: text(query.agent),
    model: text(query.model),
    from: text(query.from),
    to: text(query.to),
    q: text(query.q),
    offset: number(query.offset),
    limit: number(query.limit),
  };
}

const NOT_FOUND_CODES = new Set([
  'unknown_project',
  'unknown_session',
  'unknown_commit',
  'transcript_missing',
  'path_outside_repository',
  'path_not_tracked',
  'no_history',
  'repository_missing',
]);
const BAD_REQUEST_CODES = new Set(['unknown_revision', 'binary_file', 'bad_cursor', 'invalid_query']);
/** A malformed prices.json on the machine that answers: its owner must fix it (docs/attribution.md). */
const CONFLICT_CODES = new Set(['prices_invalid']);

export function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (isTracerError(error)) {
    const status = NOT_FOUND_CODES.has(error.code)
      ? 404
      : error.code === 'role_forbids'
        ? 403
        : BAD_REQUEST_CODES.has(error.code)
          ? 400
          : CONFLICT_CODES.has(error.code)
            ? 409
            : error.code === 'blame_unavailable'
              ? 501
              : 500;
    return apiError(request, reply, status, error.code, error.message);
  }
  const status = (error as { statusCode?: number }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500)
    return apiError(request, reply, status, 'bad_request', 'The request is malformed.');
  request.log.error({ err: error }, 'viewer request failed');
  return apiError(request, reply, 500, 'viewer_failed', `The viewer could not read this: ${(error as Error).message ?? error}`);
}

/**
 * An error of the viewers' JSON API, as every error of the service is (wire contract, "Transport and errors"): an
 * RFC 9457 problem with its `code`, and `message` beside `detail` for the viewer's own pages, which read it.
 */
export function apiError(request: FastifyRequest, reply: FastifyReply, status: number, code: string, message: string): FastifyReply {
  return reply
    .code(status)
    .type(PROBLEM_CONTENT_TYPE)
    .send({ ...problemBody(status, code, message, String(request.id)), message });
}
