// Starts the viewer listening before anything heavy loads: a plain node:http
// server takes the port and the URL can be printed at once (issue 15: within
// 0.5 s), while Fastify, the routes and the data source load behind it.
// Requests that arrive meanwhile wait in order and are answered as soon as
// the routes are ready.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { ViewerDataSource } from './data-source.js';
import { createGate } from './security.js';

export interface ViewerServer {
  url: string;
  origin: string;
  /** Settles when the routes are loaded; rejects if they cannot be. */
  ready: Promise<void>;
  close(): Promise<void>;
}

export interface ViewerOptions {
  host: string;
  port: number;
  /** The data source, or how to make it (loaded after the URL is out). */
  source: ViewerDataSource | (() => Promise<ViewerDataSource>);
  /** Path the printed URL opens (`/` or a project page). */
  startPath?: string;
  token?: string;
}

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

export async function startViewer(options: ViewerOptions): Promise<ViewerServer> {
  const server = createServer();
  const waiting: Array<[IncomingMessage, ServerResponse]> = [];
  let handle: Handler | undefined;
  server.on('request', (request: IncomingMessage, response: ServerResponse) =>
    handle ? handle(request, response) : waiting.push([request, response]),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const gate = createGate(options.host, port, options.token);
  let app: { close(): Promise<void> } | undefined;
  const ready = (async () => {
    const source = typeof options.source === 'function' ? await options.source() : options.source;
    const { buildApp } = await import('./app.js');
    const built = await buildApp({ server, gate, source });
    app = built;
    handle = built.handle;
  })();
  const drain = () => {
    for (const [request, response] of waiting.splice(0)) handle!(request, response);
  };
  ready.then(drain, () => {
    handle = (_request, response) => {
      response.statusCode = 500;
      response.end('The viewer could not start; see the terminal that ran tracer view.');
    };
    drain();
  });
  const hostPart = options.host.includes(':') ? `[${options.host}]` : options.host;
  const origin = `http://${hostPart}:${port}`;
  return {
    url: `${origin}${options.startPath ?? '/'}?token=${gate.token}`,
    origin,
    ready,
    async close() {
      await ready.catch(() => undefined);
      await app?.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
