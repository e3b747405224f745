// The one HTTP client: node-fetch 3 on kept-alive agents, one retry / back-off /
// time-out policy, one set of failure codes (network_error, timeout,
// malformed_response; refusals are worded by the caller, see `Wording`). It
// knows a base URL and paths, nothing of the service's routes: src/protocol/
// does. Every route the service offers is idempotent (dedup by content id), so
// any request may be retried, POSTs included.
import { Agent as HttpAgent } from 'node:http';
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { RequestInit, Response } from 'node-fetch';
import { ExitCode, TracerError } from '../core/errors.js';
import { backoffDelay, isTransientNetworkError, isTransientStatus, sleep } from './retry.js';
import { DEFAULT_SETTINGS, type ClientSettings } from './settings.js';

/** How failures read to the user: the caller knows whom it asked and what to suggest. */
export interface Wording {
  /** A status that is not accepted (after retries, when it is transient): the service's refusal. */
  refusal(status: number, body: string, method: string, path: string): TracerError;
  /** A sentence for a request that got no answer; `reason` is the system's code or message. */
  unreachable(reason: string, method: string, path: string): string;
  timedOut(method: string, path: string): string;
  /** A sentence for a body that should be JSON and is not; `excerpt` is its start. */
  notJson(method: string, path: string, excerpt: string): string;
}

export interface ClientOptions {
  /** Paths are appended to it as they are: `${baseUrl}${path}`. */
  baseUrl: string;
  /** Sent with every request (credentials, target). */
  headers: Record<string, string>;
  settings?: ClientSettings;
  wording: Wording;
}

export interface RequestSpec {
  method: 'GET' | 'HEAD' | 'POST';
  path: string;
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

/** The little of a response the callers use. */
export interface Answer {
  status: number;
  ok: boolean;
  headers: { get(name: string): string | null };
  /** The body stream; read it once, either here or through text(). */
  body: Readable;
  text(): Promise<string>;
}

/**
 * Lets the requests just started reach the wire before CPU-bound work. node:http
 * (under node-fetch, which also pipes the body in on later ticks) writes a
 * request on a later tick, and a long run of promise continuations, such as
 * checking a page of 500 rows, never lets that tick run: the request meant to
 * overlap the work went out after it (BENCHMARKS.md, "Requests out before the
 * work they overlap").
 */
export function letRequestsOut(): Promise<void> {
  return nextTurn();
}

type Fetch = (url: string, init: RequestInit) => Promise<Response>;
let loadedFetch: Fetch | undefined;

/**
 * node-fetch's imports are paid by the first request, never by a command that sends none (BENCHMARKS.md,
 * "node-fetch loaded by the first request"). The build (scripts/build.mjs) makes it one module of its own.
 */
async function loadFetch(): Promise<Fetch> {
  return (loadedFetch ??= (await import('node-fetch')).default as unknown as Fetch);
}

/** node:https (tls and crypto under it) loads only for an https: remote: 7 ms a command to an http:// one would otherwise pay. */
function httpsAgent(): typeof import('node:https').Agent {
  return (createRequire(import.meta.url)('node:https') as typeof import('node:https')).Agent;
}

/**
 * For commands that will surely send (push, pull, sync): node-fetch loads while
 * the kernel boots instead of after it, so its file reads fill the boot's waits
 * (BENCHMARKS.md, "node-fetch"). A failure here is met again by the first request.
 */
export function preloadFetch(): void {
  loadFetch().catch(() => undefined);
}

export class HttpClient {
  readonly baseUrl: string;
  readonly settings: ClientSettings;
  readonly #headers: Record<string, string>;
  readonly #wording: Wording;
  readonly #agent: HttpAgent;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl;
    this.settings = options.settings ?? DEFAULT_SETTINGS;
    this.#headers = { accept: 'application/json, application/problem+json', 'user-agent': 'tracer-client', ...options.headers };
    this.#wording = options.wording;
    const agentOptions = { keepAlive: true, maxSockets: 4 };
    this.#agent = options.baseUrl.startsWith('https:') ? new (httpsAgent())(agentOptions) : new HttpAgent(agentOptions);
  }

  async getJson<T>(path: string, query?: RequestSpec['query']): Promise<T> {
    return (await this.getJsonText<T>(path, query)).value;
  }

  /** GET, answered with the parsed body and the text it was parsed from. */
  async getJsonText<T>(path: string, query?: RequestSpec['query']): Promise<{ value: T; text: string }> {
    return this.request({ method: 'GET', path, query }, (answer) => this.readJson<T>(answer, 'GET', path));
  }

  async postJson<T>(path: string, json: unknown): Promise<T> {
    return this.request({ method: 'POST', path, json }, async (answer) => (await this.readJson<T>(answer, 'POST', path)).value);
  }

  /** POST answered with its status too (200 and 201 may mean different things). */
  async postJsonWithStatus<T>(path: string, json: unknown): Promise<{ status: number; body: T }> {
    return this.request({ method: 'POST', path, json }, async (answer) => ({
      status: answer.status,
      body: (await this.readJson<T>(answer, 'POST', path)).value,
    }));
  }

  /** POST of a body already serialized as JSON (e.g. stored JSONL lines joined), so it is not parsed and serialized again. */
  async postJsonText<T>(path: string, jsonText: string): Promise<T> {
    return this.request({ method: 'POST', path, jsonText }, async (answer) => (await this.readJson<T>(answer, 'POST', path)).value);
  }

  /** HEAD: the status when it is one of `accept`, else a TracerError. */
  async head(path: string, accept: readonly number[] = [200, 404]): Promise<{ status: number; contentLength?: number }> {
    return this.request({ method: 'HEAD', path, accept }, async (answer) => {
      const length = Number(answer.headers.get('content-length') ?? Number.NaN);
      return { status: answer.status, contentLength: Number.isFinite(length) ? length : undefined };
    });
  }

  /** Streams a body (a blob) and reads the JSON answer. */
  async postStream<T>(path: string, stream: () => Readable, headers: Record<string, string>): Promise<{ status: number; body: T }> {
    return this.request({ method: 'POST', path, stream, headers, transfer: true }, async (answer) => ({
      status: answer.status,
      body: (await this.readJson<T>(answer, 'POST', path)).value,
    }));
  }

  /** GET whose body `consume` streams somewhere; a failure mid-body retries the whole download. */
  async download<T>(path: string, consume: (body: Readable, answer: Answer) => Promise<T>): Promise<T> {
    return this.request({ method: 'GET', path, transfer: true, headers: { accept: 'application/octet-stream' } }, (answer) =>
      consume(answer.body, answer),
    );
  }

  close(): void {
    this.#agent.destroy();
  }

  async request<T>(spec: RequestSpec, handle: (answer: Answer) => Promise<T>): Promise<T> {
    const { retry } = this.settings;
    const url = this.url(spec.path, spec.query);
    // Once loaded, no await: the request starts in the caller's own turn.
    const fetch = loadedFetch ?? (await loadFetch());
    for (let attempt = 0; ; attempt += 1) {
      const last = attempt + 1 >= retry.attempts;
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), spec.transfer ? this.settings.transferTimeoutMs : this.settings.timeoutMs);
      let retryAfter: string | null = null;
      let answer: Answer | undefined;
      try {
        answer = answerOf(await fetch(url, this.init(spec, controller.signal)));
        if (!(answer.ok || spec.accept?.includes(answer.status))) {
          const text = spec.method === 'HEAD' ? '' : await answer.text();
          if (!last && isTransientStatus(answer.status)) {
            retryAfter = answer.headers.get('retry-after');
            throw new TransientStatus(answer.status);
          }
          throw this.#wording.refusal(answer.status, text, spec.method, spec.path);
        }
        return await handle(answer);
      } catch (error) {
        if (error instanceof TracerError) throw error;
        const transient = error instanceof TransientStatus || isTransientNetworkError(error);
        if (!transient || last) throw this.failure(error, spec, controller.signal.aborted);
        await sleep(backoffDelay(retry, attempt, retryAfter));
      } finally {
        clearTimeout(timer);
        // A body nobody read (HEAD, an accepted 404) must still be drained, or its kept-alive socket stays taken.
        answer?.body.resume();
      }
    }
  }

  private url(path: string, query: RequestSpec['query']): string {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
    return url.href;
  }

  private init(spec: RequestSpec, signal: AbortSignal): RequestInit {
    const headers: Record<string, string> = { ...this.#headers, ...spec.headers };
    let body: RequestInit['body'];
    if (spec.json !== undefined || spec.jsonText !== undefined) {
      headers['content-type'] = 'application/json';
      body = spec.jsonText ?? JSON.stringify(spec.json);
    } else if (spec.stream) {
      body = spec.stream();
    }
    // The service never compresses and never redirects: nothing asked for, decoded or followed.
    return { method: spec.method, headers, body, agent: this.#agent, signal, compress: false, redirect: 'manual' };
  }

  private async readJson<T>(answer: Answer, method: string, path: string): Promise<{ value: T; text: string }> {
    const text = await answer.text();
    try {
      return { value: JSON.parse(text) as T, text };
    } catch {
      const excerpt = text.slice(0, 60).replace(/\s+/g, ' ') || 'an empty body';
      throw new TracerError('malformed_response', this.#wording.notJson(method, path, excerpt), { exitCode: ExitCode.network });
    }
  }

  private failure(error: unknown, spec: RequestSpec, timedOut: boolean): TracerError {
    if (timedOut) {
      return new TracerError('timeout', this.#wording.timedOut(spec.method, spec.path), { exitCode: ExitCode.network, cause: error });
    }
    const { code } = error as { code?: unknown };
    const reason = error instanceof TransientStatus ? `HTTP ${error.status}` : typeof code === 'string' ? code : String(error);
    return new TracerError('network_error', this.#wording.unreachable(reason, spec.method, spec.path), {
      exitCode: ExitCode.network,
      cause: error,
    });
  }
}

class TransientStatus extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
  }
}

function answerOf(response: Response): Answer {
  const body = response.body as unknown as Readable;
  return { status: response.status, ok: response.ok, headers: response.headers, body, text: () => readText(body) };
}

/** The body as UTF-8, decoded once from its bytes (node-fetch's text() runs a TextDecoder over a copy). */
function readText(body: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    body.on('data', (chunk: Buffer) => chunks.push(chunk));
    body.on('end', () => resolve((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8')));
    body.on('error', reject);
  });
}
