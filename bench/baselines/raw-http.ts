// The least a client can do against the service (wire contract): node:http on
// one kept-alive connection, bearer token and target headers, nothing else.
// The raw baselines are built on this so that they measure the service and the
// wire, not a client library.
import { Agent, request, type IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';

export interface RawTarget {
  apiRoot: string;
  headers: Record<string, string>;
  agent: Agent;
}

export function rawTarget(remoteUrl: string, token: string): RawTarget {
  const url = new URL(remoteUrl);
  const [org, project] = url.pathname.split('/').filter(Boolean).slice(-2) as [string, string];
  return {
    apiRoot: `${url.origin}/api/v1`,
    headers: { authorization: `Bearer ${token}`, 'x-tracer-org': org, 'x-tracer-project': project },
    agent: new Agent({ keepAlive: true, maxSockets: 1 }),
  };
}

export interface RawResponse {
  status: number;
  body: Buffer;
}

/** One request; `body` is a string, a buffer or a stream. Resolves with the whole answer. */
export function send(
  target: RawTarget,
  method: string,
  route: string,
  body?: string | Buffer | Readable,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${target.apiRoot}${route}`,
      { method, agent: target.agent, headers: { ...target.headers, ...headers } },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (body === undefined || typeof body === 'string' || Buffer.isBuffer(body)) req.end(body);
    else body.pipe(req);
  });
}

/** Streams a GET's body into `sink` (a file), for blobs. */
export function download(target: RawTarget, route: string, sink: NodeJS.WritableStream): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${target.apiRoot}${route}`, { method: 'GET', agent: target.agent, headers: target.headers }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`GET ${route} answered ${res.statusCode}`));
      res.pipe(sink);
      sink.on('finish', () => resolve(res.statusCode ?? 0));
      sink.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

export function expectStatus(response: RawResponse, ok: readonly number[], what: string): RawResponse {
  if (!ok.includes(response.status))
    throw new Error(`${what} answered ${response.status}: ${response.body.toString('utf8').slice(0, 300)}`);
  return response;
}

/** Prints the one line the runner reads: elapsed milliseconds and what was done. */
export function report(startedAt: bigint, detail: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ ms: Number(process.hrtime.bigint() - startedAt) / 1e6, ...detail })}\n`);
}
