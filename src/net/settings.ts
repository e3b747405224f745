// How patient the HTTP client is: per-attempt time-outs and the retry policy,
// with the TRACER_HTTP_* environment knobs (documented in the README).
import { ExitCode, TracerError } from '../core/errors.js';
import { DEFAULT_RETRY, type RetryPolicy } from './retry.js';

export interface ClientSettings {
  retry: RetryPolicy;
  /** Per attempt, JSON requests. */
  timeoutMs: number;
  /** Per attempt, blob transfers (up to the service's BLOB_MAX_BYTES). */
  transferTimeoutMs: number;
}

export const DEFAULT_SETTINGS: ClientSettings = { retry: DEFAULT_RETRY, timeoutMs: 30_000, transferTimeoutMs: 300_000 };

/** TRACER_HTTP_TIMEOUT_MS, TRACER_HTTP_ATTEMPTS and TRACER_HTTP_BACKOFF_MS tune the defaults. */
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

const QUICK_TIMEOUT_MS = 10_000;

/** One attempt and a short time-out: for checks that must not hold a command up. */
export function quickened(settings: ClientSettings, quick: boolean | undefined): ClientSettings {
  if (!quick) return settings;
  const timeoutMs = Math.min(settings.timeoutMs, QUICK_TIMEOUT_MS);
  return { ...settings, timeoutMs, transferTimeoutMs: timeoutMs, retry: { ...settings.retry, attempts: 1 } };
}
