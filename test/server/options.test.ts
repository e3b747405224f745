import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveServeOptions } from '../../src/server/options.js';

test('defaults: 127.0.0.1:8787, SQLite under $TRACER_HOME/server, 10 MiB blobs, 32 MiB bodies, admin off, 10 sign-ins a minute', () => {
  const options = resolveServeOptions({}, {}, '/home/u/.tracer');
  assert.equal(options, {
    host: '127.0.0.1',
    port: 8787,
    dataDir: '/home/u/.tracer/server',
    databaseUrl: undefined,
    blobMaxBytes: 10 * 1024 * 1024,
    bodyMaxBytes: 32 * 1024 * 1024,
    idleTimeoutMs: 120_000,
    disabledRoutes: [],
    logLevel: 'info',
    adminSecret: undefined,
    plugins: [],
    signInsPerMinute: 10,
    allowSecrets: false,
    retain: undefined,
    retentionDelayMs: 5_000,
    retentionIntervalMs: 3_600_000,
    pricesHome: '/home/u/.tracer',
  });
});

test('every flag also comes from the environment, BLOB_MAX_BYTES under the spec’s name', () => {
  const options = resolveServeOptions(
    {},
    {
      TRACER_SERVE_HOST: '0.0.0.0',
      TRACER_SERVE_PORT: '9000',
      TRACER_SERVE_DATA_DIR: '/srv/tracer',
      TRACER_DATABASE_URL: 'postgres://db/tracer',
      BLOB_MAX_BYTES: '2048',
      TRACER_SERVE_BODY_MAX_BYTES: '65536',
      TRACER_SERVE_IDLE_TIMEOUT_MS: '5000',
      TRACER_SERVE_DISABLE_ROUTES: 'summaries, blobs',
      TRACER_SERVE_LOG_LEVEL: 'warn',
      TRACER_ADMIN_SECRET: 's3cret',
      TRACER_SERVE_PLUGINS: './family.js',
      TRACER_SERVE_SIGN_INS_PER_MINUTE: '3',
      TRACER_SERVE_ALLOW_SECRETS: 'true',
      TRACER_SERVE_RETAIN: 'conversations=90d',
      TRACER_SERVE_RETENTION_DELAY_MS: '0',
      TRACER_SERVE_RETENTION_INTERVAL_MS: '60000',
    },
    '/h',
  );
  assert.equal(options, {
    host: '0.0.0.0',
    port: 9000,
    dataDir: '/srv/tracer',
    databaseUrl: 'postgres://db/tracer',
    blobMaxBytes: 2048,
    bodyMaxBytes: 65536,
    idleTimeoutMs: 5000,
    disabledRoutes: ['summaries', 'blobs'],
    logLevel: 'warn',
    adminSecret: 's3cret',
    plugins: ['./family.js'],
    signInsPerMinute: 3,
    allowSecrets: true,
    retain: 'conversations=90d',
    retentionDelayMs: 0,
    retentionIntervalMs: 60_000,
    pricesHome: '/h',
  });
});

test('flags win over the environment', () => {
  const options = resolveServeOptions(
    { port: '1234', disableRoute: ['whoami'], blobMaxBytes: '10' },
    { TRACER_SERVE_PORT: '9000', TRACER_SERVE_DISABLE_ROUTES: 'blobs', BLOB_MAX_BYTES: '99' },
    '/h',
  );
  assert.is(options.port, 1234);
  assert.equal(options.disabledRoutes, ['whoami']);
  assert.is(options.blobMaxBytes, 10);
});

test.run();
