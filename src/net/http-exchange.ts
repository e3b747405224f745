// Default imports, looked up per call: interceptors (nock in the tests) patch http.request on the module object.
import http, { type Agent as HttpAgent, type IncomingMessage } from 'node:http';
import https, { type Agent as HttpsAgent } from 'node:https';
import type { Readable } from 'node:stream';

/**
 * One HTTP request on node:http, answered with the little of fetch's Response
 * the client uses (status, ok, headers.get, text(), body). node-fetch did this
 * before; it cost ~30 ms of imports on every push, pull and status (20 modules)
 * and decoded every body through a TextDecoder stream (profiles in BENCHMARKS.md).
 * The service never compresses, so nothing is asked for or decoded.
 */
export interface ExchangeInit {
  method: string;
  headers: Record<string, string>;
  body?: string | Readable;
  agent: HttpAgent | HttpsAgent;
  signal: AbortSignal;
}

export interface Answer {
  status: number;
  ok: boolean;
  headers: { get(name: string): string | null };
  /** The body stream; read it once, either here or through text(). */
  body: Readable;
  text(): Promise<string>;
}

export function exchange(url: string, init: ExchangeInit): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers = { ...init.headers };
    if (typeof init.body === 'string') headers['content-length'] = String(Buffer.byteLength(init.body));
    const send = url.startsWith('https:') ? https.request : http.request;
    const req = send(url, { method: init.method, headers, agent: init.agent, signal: init.signal }, (res) => resolve(answer(res)));
    req.on('error', reject);
    if (init.body === undefined || typeof init.body === 'string') {
      req.end(init.body);
      return;
    }
    const source = init.body;
    // A failing source (an unreadable blob file) fails the request rather than hanging it.
    source.on('error', (error) => req.destroy(error));
    source.pipe(req);
  });
}

function answer(res: IncomingMessage): Answer {
  const status = res.statusCode ?? 0;
  return {
    status,
    ok: status >= 200 && status < 300,
    headers: {
      get(name) {
        const value = res.headers[name.toLowerCase()];
        return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
      },
    },
    body: res,
    text: () =>
      new Promise((resolve, reject) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => (res.complete ? resolve(Buffer.concat(chunks).toString('utf8')) : reject(prematureClose())));
        res.on('error', reject);
        res.on('aborted', () => reject(prematureClose()));
      }),
  };
}

/** What a connection cut mid-body looks like: transient, so the request is retried. */
function prematureClose(): Error {
  return Object.assign(new Error('Premature close: the connection ended before the whole body arrived'), { code: 'ECONNRESET' });
}
