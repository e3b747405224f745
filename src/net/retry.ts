// Bounded retry for transient failures: connection reset, time-out, 429 and 5xx
// (501 excepted: it means "not implemented", a permanent answer). Backoff is
// exponential with full jitter, capped; Retry-After is honoured up to a cap.

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Upper bound on a server's Retry-After. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 5, baseDelayMs: 250, maxDelayMs: 5_000, maxRetryAfterMs: 30_000 };

const TRANSIENT_ERRNO = new Set([
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ECONNABORTED',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ERR_STREAM_PREMATURE_CLOSE',
  'UND_ERR_SOCKET',
]);

export function isTransientStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status !== 501);
}

export function isTransientNetworkError(error: unknown): boolean {
  const candidate = error as { code?: unknown; errno?: unknown; name?: unknown; type?: unknown; cause?: unknown; message?: unknown };
  if (candidate === null || typeof candidate !== 'object') return false;
  if (candidate.name === 'AbortError' || candidate.name === 'TimeoutError') return true;
  for (const code of [candidate.code, candidate.errno]) if (typeof code === 'string' && TRANSIENT_ERRNO.has(code)) return true;
  if (typeof candidate.message === 'string' && /socket hang up|premature close|other side closed/i.test(candidate.message)) return true;
  return candidate.cause !== undefined && candidate.cause !== error && isTransientNetworkError(candidate.cause);
}

export function backoffDelay(policy: RetryPolicy, attempt: number, retryAfter?: string | null): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  const jittered = Math.round(exponential / 2 + (Math.random() * exponential) / 2);
  const asked = parseRetryAfter(retryAfter);
  return asked === undefined ? jittered : Math.max(jittered, Math.min(asked, policy.maxRetryAfterMs));
}

function parseRetryAfter(value: string | null | undefined): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
