// The viewer's routes, in Fastify: the page shell for every deep link (the UI
// bundle renders it), the bundle itself, and a read-only JSON API over a
// ViewerDataSource. Every request passes the gate first (Host, then token or
// cookie). Only GET exists: nothing here can change the store. It runs on the
// node:http server that server.ts already listens on.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { isTracerError } from '../core/errors.js';
import type { ListQuery, ViewerDataSource } from './data-source.js';
import { SECURITY_HEADERS, type Gate } from './security.js';
import { notFoundPage, plainPage, shellPage } from './pages.js';

export type RequestHandler = (request: IncomingMessage, response: ServerResponse) => void;

// From src/viewer/ (tests, tsx) and from dist/viewer/ alike this is <package>/dist/viewer/assets: npm run build puts the bundle there.
const ASSETS_DIR = fileURLToPath(new URL('../../dist/viewer/assets/', import.meta.url));
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
  registerApi(app, options.source);
  registerPages(app, options.source);
  app.setNotFoundHandler((request, reply) => {
    if (request.url.startsWith('/api/')) return reply.code(404).send({ code: 'not_found', message: 'No such API route.' });
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
  if (request.url.startsWith('/api/'))
    return reply.code(401).send({ code: 'viewer_token_required', message: 'Open the URL tracer view printed.' });
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

function registerAssets(app: FastifyInstance): void {
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

type ProjectParams = { project: string };

function registerApi(app: FastifyInstance, source: ViewerDataSource): void {
  app.get('/api/projects', () => source.projects());
  app.get<{ Params: ProjectParams }>('/api/p/:project/stats', (request) => source.projectStats(request.params.project));
  app.get<{ Params: ProjectParams }>('/api/p/:project/facets', (request) => source.facets(request.params.project));
  app.get<{ Params: ProjectParams; Querystring: Record<string, string> }>('/api/p/:project/sessions', (request) =>
    source.sessions(request.params.project, listQuery(request.query)),
  );
  app.get<{ Params: ProjectParams; Querystring: Record<string, string> }>('/api/p/:project/commits', (request) =>
    source.commits(request.params.project, listQuery(request.query)),
  );
  app.get<{ Params: ProjectParams & { session: string } }>('/api/p/:project/sessions/:session', (request) =>
    source.session(request.params.project, request.params.session),
  );
  app.get<{ Params: ProjectParams & { session: string }; Querystring: { cursor?: string; limit?: string } }>(
    '/api/p/:project/sessions/:session/transcript',
    (request) => {
      const limit = Math.min(500, Math.max(1, Number(request.query.limit) || 100));
      return source.transcript(request.params.project, request.params.session, request.query.cursor, limit);
    },
  );
  app.get<{ Params: ProjectParams & { sha: string } }>('/api/p/:project/commits/:sha', (request) =>
    source.commit(request.params.project, request.params.sha),
  );
  app.get<{ Params: ProjectParams & { '*': string }; Querystring: { rev?: string } }>('/api/p/:project/blame/*', (request) =>
    source.blame(request.params.project, request.params['*'], request.query.rev || undefined),
  );
}

function registerPages(app: FastifyInstance, source: ViewerDataSource): void {
  app.get('/', (_request, reply) => reply.type('text/html; charset=utf-8').send(shellPage()));
  const projectPage = async (request: FastifyRequest<{ Params: ProjectParams }>, reply: FastifyReply) => {
    // An unknown project is a real 404; unknown sessions and commits are told by the API, which the page asks anyway.
    const known = (await source.projects()).some((project) => project.id === request.params.project);
    return reply
      .code(known ? 200 : 404)
      .type('text/html; charset=utf-8')
      .send(shellPage());
  };
  for (const path of ['/p/:project', '/p/:project/sessions/:session', '/p/:project/commits/:sha', '/p/:project/blame/*'])
    app.get(path, projectPage);
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
const BAD_REQUEST_CODES = new Set(['unknown_revision', 'binary_file', 'bad_cursor']);

function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (isTracerError(error)) {
    const status = NOT_FOUND_CODES.has(error.code)
      ? 404
      : BAD_REQUEST_CODES.has(error.code)
        ? 400
        : error.code === 'blame_unavailable'
          ? 501
          : 500;
    return reply.code(status).send({ code: error.code, message: error.message });
  }
  const status = (error as { statusCode?: number }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500)
    return reply.code(status).send({ code: 'bad_request', message: 'The request is malformed.' });
  request.log.error(error);
  return reply.code(500).send({ code: 'viewer_failed', message: `The viewer could not read this: ${(error as Error).message ?? error}` });
}
