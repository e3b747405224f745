import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { exchange, type Answer, type ExchangeInit } from './http-exchange.js';
import { ExitCode, TracerError } from '../core/errors.js';
import { parseProblem, remoteErrorFrom, type RemoteIdentity } from './remote-error.js';
import { backoffDelay, DEFAULT_RETRY, isTransientNetworkError, isTransientStatus, sleep, type RetryPolicy } from './retry.js';

/**
 * The HTTP client of one remote (wire contract): every request carries the
 * bearer token and the X-Tracer-Org / X-Tracer-Project target, routes are
 * resolved under the remote's API root, problems become TracerErrors with the
 * service's code, and transient failures are retried with bounded backoff.
 * Every route the service offers is idempotent (dedup by content id), so any
 * request may be retried, POSTs included.
 */
export interface RemoteTarget extends RemoteIdentity {
  /** Where `/api/v1/...` routes live (core/remote-url.ts apiRoot()). */
  apiRoot: string;
  token?: string;
}

export interface ClientSettings {
  retry: RetryPolicy;
  /** Per attempt, JSON requests. */
  timeoutMs: number;
  /** Per attempt, blob transfers (up to the service's BLOB_MAX_BYTES). */
  transferTimeoutMs: number;
}

/**
 * Lets the requests just started reach the wire before CPU-bound work. node:http
 * writes a request on a later tick (the kept-alive socket is handed over in
 * process.nextTick), and a long run of promise continuations, such as checking
 * a page of 500 rows, never lets that tick run: the request meant to overlap
 * the work went out after it. Pull waited on the service 1.4 s of 2.8 s; with
 * this turn of the event loop, 0.6 s of 2.1 s.
 */
export function letRequestsOut(): Promise<void> {
  return nextTurn();
}

export const DEFAULT_SETTINGS: ClientSettings = { retry: DEFAULT_RETRY, timeoutMs: 30_000, transferTimeoutMs: 300_000 };

/** TRACER_HTTP_TIMEOUT_MS, TRACER_HTTP_ATTEMPTS and TRACER_HTTP_BACKOFF_MS tune the defaults (documented in README). */
export function settingsFromEnv(env: NodeJS.ProcessEnv): ClientSettings {
  const number = (name: string): number | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === '') return undefined;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 0) {
      throw new TracerError('invalid_environment', `${name} must be a whole number, not "${raw}"; fix or unset it.`, {
        exitCode: ExitCode.usage,
      });
    }
    return value;
  };
  const timeout = number('TRACER_HTTP_TIMEOUT_MS');
  const attempts = number('TRACER_HTTP_ATTEMPTS');
  const backoff = number('TRACER_HTTP_BACKOFF_MS');
  return {
    timeoutMs: timeout ?? DEFAULT_SETTINGS.timeoutMs,
    transferTimeoutMs: timeout ?? DEFAULT_SETTINGS.transferTimeoutMs,
    retry: {
      attempts: Math.max(1, attempts ?? DEFAULT_RETRY.attempts),
      baseDelayMs: backoff ?? DEFAULT_RETRY.baseDelayMs,
      maxDelayMs: backoff === undefined ? DEFAULT_RETRY.maxDelayMs : backoff * 16,
      maxRetryAfterMs: backoff === undefined ? DEFAULT_RETRY.maxRetryAfterMs : backoff * 16,
    },
  };
}

export interface RequestSpec {
  method: 'GET' | 'HEAD' | 'POST';
  route: string;
  query?: Record<string, string | number | undefined>;
  json?: unknown;
  /** A JSON body as text, sent as it is. */
  jsonText?: string;
  /** A fresh body stream per attempt, so a retry can send it again. */
  stream?: () => Readable;
  headers?: Record<string, string>;
  /** Statuses that are answers, not errors (e.g. 404 for HEAD of a blob). */
  accept?: readonly number[];
  transfer?: boolean;
}

export class RemoteClient {
  readonly #agent: HttpAgent;

  constructor(
    readonly target: RemoteTarget,
    readonly settings: ClientSettings = DEFAULT_SETTINGS,
  ) {
    const options = { keepAlive: true, maxSockets: 4 };
    this.#agent = target.apiRoot.startsWith('https:') ? new HttpsAgent(options) : new HttpAgent(options);
  }

  async getJson<T>(route: string, query?: RequestSpec['query']): Promise<T> {
    return (await this.getJsonText<T>(route, query)).value;
  }

  /** GET, answered with the parsed body and the text it was parsed from. */
  async getJsonText<T>(route: string, query?: RequestSpec['query']): Promise<{ value: T; text: string }> {
    return this.request({ method: 'GET', route, query }, (response) => readJsonText<T>(response, this.target, route));
  }

  async postJson<T>(route: string, json: unknown): Promise<T> {
    return this.request({ method: 'POST', route, json }, (response) => readJson<T>(response, this.target, route));
  }

  /** POST of a body already serialized as JSON (e.g. stored JSONL lines joined), so it is not parsed and serialized again. */
  async postJsonText<T>(route: string, jsonText: string): Promise<T> {
    return this.request({ method: 'POST', route, jsonText }, (response) => readJson<T>(response, this.target, route));
  }

  /** HEAD: the status when it is one of `accept`, else a TracerError. */
  async head(route: string, accept: readonly number[] = [200, 404]): Promise<{ status: number; contentLength?: number }> {
    return this.request({ method: 'HEAD', route, accept }, async (response) => {
      const length = Number(response.headers.get('content-length'));
      return { status: response.status, contentLength: Number.isFinite(length) ? length : undefined };
    });
  }

  /** Streams a body (a blob) and reads the JSON answer. */
  async postStream<T>(route: string, stream: () => Readable, headers: Record<string, string>): Promise<{ status: number; body: T }> {
    return this.request({ method: 'POST', route, stream, headers, transfer: true }, async (response) => ({
      status: response.status,
      body: await readJson<T>(response, this.target, route),
    }));
  }

  /** GET whose body `consume` streams somewhere; a failure mid-body retries the whole download. */
  async download<T>(route: string, consume: (body: Readable, response: Answer) => Promise<T>): Promise<T> {
    return this.request({ method: 'GET', route, transfer: true, headers: { accept: 'application/octet-stream' } }, (response) =>
      consume(response.body, response),
    );
  }

  close(): void {
    this.#agent.destroy();
  }

  async request<T>(spec: RequestSpec, handle: (response: Answer) => Promise<T>): Promise<T> {
    const { retry } = this.settings;
    const url = this.url(spec.route, spec.query);
    for (let attempt = 0; ; attempt += 1) {
      const last = attempt + 1 >= retry.attempts;
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), spec.transfer ? this.settings.transferTimeoutMs : this.settings.timeoutMs);
      let retryAfter: string | null = null;
      let response: Answer | undefined;
      try {
        response = await exchange(url, this.init(spec, controller.signal));
        const accepted = response.ok || spec.accept?.includes(response.status);
        if (!accepted) {
          const text = spec.method === 'HEAD' ? '' : await response.text();
          if (!last && isTransientStatus(response.status)) {
            retryAfter = response.headers.get('retry-after');
            throw new TransientStatus(response.status);
          }
          throw remoteErrorFrom(response.status, parseProblem(response.status, text), this.target, spec.method, spec.route);
        }
        return await handle(response);
      } catch (error) {
        if (error instanceof TracerError) throw error;
        const transient = error instanceof TransientStatus || isTransientNetworkError(error);
        if (!transient || last) throw networkError(error, this.target, spec, controller.signal.aborted);
        await sleep(backoffDelay(retry, attempt, retryAfter));
      } finally {
        clearTimeout(timer);
        // A body nobody read (HEAD, an accepted 404) must still be drained, or its kept-alive socket stays taken.
        response?.body.resume();
      }
    }
  }

  private url(route: string, query: RequestSpec['query']): string {
    const url = new URL(`${this.target.apiRoot}${route}`);
    for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
    return url.href;
  }

  private init(spec: RequestSpec, signal: AbortSignal): ExchangeInit {
    const headers: Record<string, string> = {
      accept: 'application/json, application/problem+json',
      'x-tracer-org': this.target.org,
      'x-tracer-project': this.target.project,
      'user-agent': 'tracer-client',
      ...spec.headers,
    };
    if (this.target.token) headers.authorization = `Bearer ${this.target.token}`;
    let body: ExchangeInit['body'];
    if (spec.json !== undefined || spec.jsonText !== undefined) {
      headers['content-type'] = 'application/json';
      body = spec.jsonText ?? JSON.stringify(spec.json);
    } else if (spec.stream) {
      body = spec.stream();
    }
    return { method: spec.method, headers, body, agent: this.#agent, signal };
  }
}

class TransientStatus extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
  }
}

async function readJson<T>(response: Answer, target: RemoteTarget, route: string): Promise<T> {
  return (await readJsonText<T>(response, target, route)).value;
}

async function readJsonText<T>(response: Answer, target: RemoteTarget, route: string): Promise<{ value: T; text: string }> {
  const text = await response.text();
  try {
    return { value: JSON.parse(text) as T, text };
  } catch {
    throw new TracerError(
      'malformed_response',
      `Remote "${target.name}" answered ${route} with something that is not JSON (${text.slice(0, 60).replace(/\s+/g, ' ') || 'an empty body'}); check that ${target.url} points at a tracer service.`,
      { exitCode: ExitCode.network },
    );
  }
}

function networkError(error: unknown, target: RemoteTarget, spec: RequestSpec, timedOut: boolean): TracerError {
  if (error instanceof TransientStatus) {
    // Unreachable: the last attempt reports the status itself. Kept for type narrowing.
    return new TracerError(
      'service_unavailable',
      `Remote "${target.name}" kept answering ${error.status} to ${spec.method} ${spec.route}; try again later.`,
      { exitCode: ExitCode.network },
    );
  }
  const code = (error as { code?: string }).code;
  if (timedOut) {
    return new TracerError(
      'timeout',
      `${spec.method} ${spec.route} on remote "${target.name}" timed out after retries; check the network or raise TRACER_HTTP_TIMEOUT_MS.`,
      {
        exitCode: ExitCode.network,
        cause: error,
      },
    );
  }
  const why = code ?? (error instanceof Error ? error.message : String(error));
  return new TracerError(
    'network_error',
    `Cannot reach remote "${target.name}" at ${target.apiRoot} (${why}); check the URL with tracer remote show ${target.name} and that the service is running.`,
    {
      exitCode: ExitCode.network,
      cause: error,
    },
  );
}
