import { join } from 'node:path';
import { ExitCode, TracerError } from '../core/errors.js';
import { BLOB_MAX_BYTES, SERVICE_BODY_MAX_BYTES } from '../protocol/limits.js';

/** Everything `tracer serve` can be told, from flags or the environment (flags win). */
export interface ServeOptions {
  host: string;
  port: number;
  /** SQLite database and blob folder; unused with a PostgreSQL database. */
  dataDir: string;
  /** `postgres://...` keeps rows and blobs in PostgreSQL; unset → embedded SQLite. */
  databaseUrl?: string;
  blobMaxBytes: number;
  bodyMaxBytes: number;
  /** A connection with no bytes either way for this long is closed: a stalled body cannot hold it forever. */
  idleTimeoutMs: number;
  /** Route names that answer 404 as if this service did not have them: a family name, `blobs` or `whoami`. */
  disabledRoutes: string[];
  logLevel: LogLevel;
  /** Unset → the admin routes are off. */
  adminSecret?: string;
  /** Extra plugin modules (paths or package names) enabling custom families on the service. */
  plugins: string[];
  /** Team view sign-in attempts accepted per client address and minute; more get 429. */
  signInsPerMinute: number;
  /** Store uploads that still hold a secret instead of refusing them (422 secret_detected); said at start. */
  allowSecrets: boolean;
  /** `--retain`: `<family>=<age>` pairs, checked against the families once they are known (privacy/retention.ts). */
  retain?: string;
  /** When retention first runs after start, then how often. */
  retentionDelayMs: number;
  retentionIntervalMs: number;
  /** The home whose prices.json overrides the price table for the team view's costs (docs/attribution.md). */
  pricesHome: string;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const DEFAULTS = {
  host: '127.0.0.1',
  port: 8787,
  blobMaxBytes: BLOB_MAX_BYTES,
  bodyMaxBytes: SERVICE_BODY_MAX_BYTES,
  // Long enough for a slow link and a busy database; a stalled client is cut after it.
  idleTimeoutMs: 120_000,
  logLevel: 'info' as LogLevel,
  // Enough for a typo or two; far too few to guess a 256-bit token.
  signInsPerMinute: 10,
  // "Shortly after start": the listener is up and the first requests are answered first.
  retentionDelayMs: 5_000,
  retentionIntervalMs: 3_600_000,
};

/** Route switches that are not families. */
export const OPTIONAL_ROUTES = ['blobs', 'whoami', 'ui', 'tombstones', 'forget'] as const;

/** The environment variable behind each flag (documented in docs/server.md). */
export const ENV = {
  host: 'TRACER_SERVE_HOST',
  port: 'TRACER_SERVE_PORT',
  dataDir: 'TRACER_SERVE_DATA_DIR',
  databaseUrl: 'TRACER_DATABASE_URL',
  blobMaxBytes: 'BLOB_MAX_BYTES',
  bodyMaxBytes: 'TRACER_SERVE_BODY_MAX_BYTES',
  idleTimeoutMs: 'TRACER_SERVE_IDLE_TIMEOUT_MS',
  disabledRoutes: 'TRACER_SERVE_DISABLE_ROUTES',
  logLevel: 'TRACER_SERVE_LOG_LEVEL',
  adminSecret: 'TRACER_ADMIN_SECRET',
  plugins: 'TRACER_SERVE_PLUGINS',
  signInsPerMinute: 'TRACER_SERVE_SIGN_INS_PER_MINUTE',
  allowSecrets: 'TRACER_SERVE_ALLOW_SECRETS',
  retain: 'TRACER_SERVE_RETAIN',
  retentionDelayMs: 'TRACER_SERVE_RETENTION_DELAY_MS',
  retentionIntervalMs: 'TRACER_SERVE_RETENTION_INTERVAL_MS',
} as const;

export interface ServeFlags {
  host?: string;
  port?: string;
  dataDir?: string;
  database?: string;
  blobMaxBytes?: string;
  bodyMaxBytes?: string;
  idleTimeoutMs?: string;
  disableRoute?: string[];
  logLevel?: string;
  plugins?: string[];
  signInsPerMinute?: string;
  allowSecrets?: boolean;
  retain?: string;
  retentionDelayMs?: string;
  retentionIntervalMs?: string;
}

export function resolveServeOptions(flags: ServeFlags, env: NodeJS.ProcessEnv, home: string): ServeOptions {
  const pick = (flag: string | undefined, variable: string) => (flag ?? env[variable])?.trim() || undefined;
  const list = (flag: string[] | undefined, variable: string) =>
    flag?.length
      ? flag
      : (env[variable] ?? '')
          .split(',')
          .map((entry) => entry.trim())
          .filter(Boolean);

  const databaseUrl = pick(flags.database, ENV.databaseUrl);
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw usage(
      'invalid_database_url',
      `--database (or ${ENV.databaseUrl}) must be a postgres:// URL; leave it unset for the embedded SQLite database.`,
    );
  }
  const logLevel = pick(flags.logLevel, ENV.logLevel) ?? DEFAULTS.logLevel;
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw usage('invalid_log_level', `The log level "${logLevel}" is unknown; use one of ${LOG_LEVELS.join(', ')}.`);
  }
  return {
    host: pick(flags.host, ENV.host) ?? DEFAULTS.host,
    port: integer(pick(flags.port, ENV.port), DEFAULTS.port, '--port', ENV.port, { min: 0, max: 65535 }),
    dataDir: pick(flags.dataDir, ENV.dataDir) ?? join(home, 'server'),
    databaseUrl,
    blobMaxBytes: integer(pick(flags.blobMaxBytes, ENV.blobMaxBytes), DEFAULTS.blobMaxBytes, '--blob-max-bytes', ENV.blobMaxBytes, {
      min: 1,
    }),
    bodyMaxBytes: integer(pick(flags.bodyMaxBytes, ENV.bodyMaxBytes), DEFAULTS.bodyMaxBytes, '--body-max-bytes', ENV.bodyMaxBytes, {
      min: 1024,
    }),
    idleTimeoutMs: integer(pick(flags.idleTimeoutMs, ENV.idleTimeoutMs), DEFAULTS.idleTimeoutMs, '--idle-timeout-ms', ENV.idleTimeoutMs, {
      min: 100,
    }),
    disabledRoutes: [...new Set(list(flags.disableRoute, ENV.disabledRoutes))],
    logLevel: logLevel as LogLevel,
    adminSecret: env[ENV.adminSecret] || undefined,
    plugins: list(flags.plugins, ENV.plugins),
    signInsPerMinute: integer(
      pick(flags.signInsPerMinute, ENV.signInsPerMinute),
      DEFAULTS.signInsPerMinute,
      '--sign-ins-per-minute',
      ENV.signInsPerMinute,
      { min: 1 },
    ),
    allowSecrets: flags.allowSecrets ?? switchedOn(env[ENV.allowSecrets], ENV.allowSecrets),
    retain: pick(flags.retain, ENV.retain),
    retentionDelayMs: integer(
      pick(flags.retentionDelayMs, ENV.retentionDelayMs),
      DEFAULTS.retentionDelayMs,
      '--retention-delay-ms',
      ENV.retentionDelayMs,
      { min: 0 },
    ),
    retentionIntervalMs: integer(
      pick(flags.retentionIntervalMs, ENV.retentionIntervalMs),
      DEFAULTS.retentionIntervalMs,
      '--retention-interval-ms',
      ENV.retentionIntervalMs,
      { min: 1000 },
    ),
    pricesHome: home,
  };
}

/** A yes/no environment variable: unset or empty is no; anything but true/1/yes/false/0/no is refused. */
function switchedOn(text: string | undefined, variable: string): boolean {
  const value = text?.trim().toLowerCase();
  if (value === undefined || value === '' || value === 'false' || value === '0' || value === 'no') return false;
  if (value === 'true' || value === '1' || value === 'yes') return true;
  throw usage('invalid_option_value', `${variable} must be true or false, not "${text}".`);
}

/** Refuses switches that name no route of this service (families are known only once plugins are applied). */
export function checkDisabledRoutes(disabled: readonly string[], familyNames: readonly string[]): void {
  const known = [...familyNames, ...OPTIONAL_ROUTES];
  for (const name of disabled) {
    if (!known.includes(name))
      throw usage('unknown_route', `--disable-route ${name} names no route of this service; use one of ${known.join(', ')}.`);
  }
}

function integer(text: string | undefined, fallback: number, flag: string, variable: string, range: { min: number; max?: number }): number {
  if (text === undefined) return fallback;
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < range.min || (range.max !== undefined && value > range.max)) {
    const bounds = range.max === undefined ? `at least ${range.min}` : `from ${range.min} to ${range.max}`;
    throw usage('invalid_option_value', `${flag} (or ${variable}) must be a whole number ${bounds}, not "${text}".`);
  }
  return value;
}

function usage(code: string, message: string): TracerError {
  return new TracerError(code, message, { exitCode: ExitCode.usage });
}
