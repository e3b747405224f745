// `tracer serve`: the remote trace service. Fastify, the database drivers and the
// server modules load inside run(), never at start-up: agent hooks run tracer on
// every tool use and must not pay for them.
import { Command, Option } from 'clipanion';
import { reportWarnings } from '../cli/report.js';
import { TracerCommand } from '../cli/tracer-command.js';
import { ExitCode, TracerError } from '../core/errors.js';

export class ServeCommand extends TracerCommand {
  static override foldsSpoolFirst = false;
  // The service's own kernel (its families and detectors), not the command line's.
  static override usesKernel = true;
  static override paths = [['serve']];
  static override usage = Command.Usage({
    category: 'Service',
    description: 'Run the remote trace service',
    details: `
      Serves the sync routes of every enabled family, blobs, whoami and administration under \`/api/v1/\`, and the same under the gateway mount \`/gw/<org>/<project>/api/v1/\`. \`GET /healthz\` answers without a token.

      The team view is under \`/ui/\`: sign in at \`/ui/sign-in\` with an org or project token of this service to browse the sessions, commits and AI share every machine pushed, with the pages of \`tracer view\`.

      With no \`--database\` it keeps rows in an embedded SQLite database and blobs in a content-addressed folder, both under \`--data-dir\` (default \`$TRACER_HOME/server\`). With \`--database postgres://...\` rows and blobs live in PostgreSQL, so several services behind a load balancer share that database and nothing else.

      Every uploaded transcript (blob or inline) and summary is scanned with the detectors capture uses (the \`redact\` plugin's built-in layers, and any detector plugin given with \`--plugins\`); one that still holds a secret is refused with 422 \`secret_detected\`, so old clients and other uploaders cannot store one either. \`--allow-secrets\` (env TRACER_SERVE_ALLOW_SECRETS=true) turns that off, and the service says so when it starts.

      Every flag can also come from the environment: TRACER_SERVE_HOST, TRACER_SERVE_PORT, TRACER_SERVE_DATA_DIR, TRACER_DATABASE_URL, BLOB_MAX_BYTES, TRACER_SERVE_BODY_MAX_BYTES, TRACER_SERVE_IDLE_TIMEOUT_MS, TRACER_SERVE_DISABLE_ROUTES (comma-separated), TRACER_SERVE_LOG_LEVEL, TRACER_SERVE_PLUGINS (comma-separated), TRACER_SERVE_SIGN_INS_PER_MINUTE, TRACER_SERVE_RETAIN, TRACER_SERVE_RETENTION_DELAY_MS, TRACER_SERVE_RETENTION_INTERVAL_MS, TRACER_SERVE_ALLOW_SECRETS. TRACER_ADMIN_SECRET enables the admin routes; without it they are off.

      The first line printed says where it listens, which backend and where the data lives; request logs (JSON, with request ids, never the Authorization header) follow. SIGTERM or SIGINT stops accepting connections, lets in-flight requests finish and closes the database.
    `,
    examples: [
      ['Run on the default port with embedded SQLite', 'TRACER_ADMIN_SECRET=s3cret $0 serve'],
      ['Listen on every interface, data on PostgreSQL', '$0 serve --host 0.0.0.0 --database postgres://tracer@db/tracer'],
      ['Act like an old server without summaries and blobs', '$0 serve --disable-route summaries --disable-route blobs'],
      ['Serve without the team view', '$0 serve --disable-route ui'],
      ['Remove transcripts and summaries after 90 days', '$0 serve --retain conversations=90d,summaries=90d'],
    ],
  });

  host = Option.String('--host', { description: 'Address to listen on (default 127.0.0.1; env TRACER_SERVE_HOST)' });
  port = Option.String('--port', { description: 'Port to listen on, 0 for any free one (default 8787; env TRACER_SERVE_PORT)' });
  dataDir = Option.String('--data-dir', {
    description: 'Folder for the SQLite database and blobs (default $TRACER_HOME/server; env TRACER_SERVE_DATA_DIR)',
  });
  database = Option.String('--database', { description: 'postgres:// URL: keep rows and blobs in PostgreSQL (env TRACER_DATABASE_URL)' });
  blobMaxBytes = Option.String('--blob-max-bytes', {
    description: 'Largest blob accepted, in bytes (default 10485760; env BLOB_MAX_BYTES)',
  });
  bodyMaxBytes = Option.String('--body-max-bytes', {
    description: 'Largest JSON request body, in bytes (default 33554432; env TRACER_SERVE_BODY_MAX_BYTES)',
  });
  idleTimeoutMs = Option.String('--idle-timeout-ms', {
    description: 'Close a connection idle this long, e.g. a stalled upload (default 120000; env TRACER_SERVE_IDLE_TIMEOUT_MS)',
  });
  disableRoute = Option.Array('--disable-route', {
    description:
      'Answer 404 on this route as if absent: a family (e.g. summaries), blobs, whoami, tombstones, forget or ui (the team view); repeatable',
  });
  logLevel = Option.String('--log-level', {
    description: 'fatal, error, warn, info, debug, trace or silent (default info; env TRACER_SERVE_LOG_LEVEL)',
  });
  signInsPerMinute = Option.String('--sign-ins-per-minute', {
    description: 'Team view sign-in attempts allowed per client address and minute (default 10; env TRACER_SERVE_SIGN_INS_PER_MINUTE)',
  });
  allowSecrets = Option.Boolean('--allow-secrets', {
    description:
      'Store uploads that still hold a secret instead of refusing them with 422 secret_detected (env TRACER_SERVE_ALLOW_SECRETS)',
  });
  retain = Option.String('--retain', {
    description:
      'Remove rows older than this per family, e.g. conversations=90d,summaries=90d (ages in h, d, w, y; env TRACER_SERVE_RETAIN)',
  });
  retentionDelayMs = Option.String('--retention-delay-ms', {
    description: 'First retention run this long after start (default 5000; env TRACER_SERVE_RETENTION_DELAY_MS)',
  });
  retentionIntervalMs = Option.String('--retention-interval-ms', {
    description: 'Then one run every this long (default 3600000, hourly; env TRACER_SERVE_RETENTION_INTERVAL_MS)',
  });
  plugins = Option.Array('--plugins', {
    description: 'Extra plugin module enabling a custom family on the service; repeatable (env TRACER_SERVE_PLUGINS)',
  });

  async run() {
    const { resolveServeOptions } = await import('../server/options.js');
    const { loadServiceFamilies } = await import('../server/families.js');
    const { startService } = await import('../server/service.js');
    const { home, cwd, env } = this.context;
    const options = resolveServeOptions(
      {
        host: this.host,
        port: this.port,
        dataDir: this.dataDir,
        database: this.database,
        blobMaxBytes: this.blobMaxBytes,
        bodyMaxBytes: this.bodyMaxBytes,
        idleTimeoutMs: this.idleTimeoutMs,
        disableRoute: this.disableRoute,
        logLevel: this.logLevel,
        plugins: this.plugins,
        signInsPerMinute: this.signInsPerMinute,
        allowSecrets: this.allowSecrets,
        retain: this.retain,
        retentionDelayMs: this.retentionDelayMs,
        retentionIntervalMs: this.retentionIntervalMs,
      },
      env,
      home,
    );
    const { families, warnings, kernel: serviceKernel } = await loadServiceFamilies({ home, cwd, env, extraPlugins: options.plugins });
    const secrets = options.allowSecrets
      ? undefined
      : await (await import('../redact/gate.js')).createSecretGate(serviceKernel, { home, env });
    // Shown now, not at exit: the service may run for weeks.
    reportWarnings([...warnings, ...(secrets?.problems ?? [])], this.context.stderr);
    let service;
    try {
      service = await startService(options, families, secrets?.gate);
    } catch (error) {
      throw startFailure(error, options.host, options.port);
    }
    this.print(service.startupLine);
    const disabled = options.disabledRoutes.length ? `; routes off: ${options.disabledRoutes.join(', ')}` : '';
    this.print(`families: ${families.map((family) => family.name).join(', ')}${disabled}`);
    // Never silently: whoever reads the log sees whether secrets can be stored.
    if (!secrets) this.print('secret gate OFF (--allow-secrets): uploads that still hold a secret are stored as they are');
    else if (secrets.detectors === 0)
      this.print('secret gate on, but no enabled plugin brings a detector: nothing is refused (tracer plugins)');
    else this.print(`secret gate on: uploads that still hold a secret are refused (secret_detected), ${secrets.detectors} detectors`);

    const signal = await new Promise<NodeJS.Signals>((resolve) => {
      process.once('SIGTERM', () => resolve('SIGTERM'));
      process.once('SIGINT', () => resolve('SIGINT'));
    });
    this.print(`${signal}: finishing in-flight requests, then closing the database`);
    await service.close();
    this.print('tracer serve stopped');
    return ExitCode.ok;
  }
}

function startFailure(error: unknown, host: string, port: number): unknown {
  if (error instanceof TracerError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE')
    return new TracerError('address_in_use', `Port ${port} on ${host} is already in use; stop the other process or choose --port.`, {
      exitCode: ExitCode.localState,
      cause: error,
    });
  if (code === 'EACCES')
    return new TracerError('address_denied', `Listening on ${host}:${port} is not permitted; choose a port above 1023 or another --host.`, {
      exitCode: ExitCode.localState,
      cause: error,
    });
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
    return new TracerError('address_unavailable', `${host} is not an address of this machine; choose another --host.`, {
      exitCode: ExitCode.localState,
      cause: error,
    });
  if (code === 'ECONNREFUSED' || code === '28P01' || code === '3D000' || (error as Error).message?.includes('connect')) {
    return new TracerError(
      'database_unavailable',
      `The database could not be opened: ${(error as Error).message}; check --database (or TRACER_DATABASE_URL) and that PostgreSQL is running.`,
      { exitCode: ExitCode.network, cause: error },
    );
  }
  return new TracerError('serve_failed', `The service could not start: ${(error as Error).message}; check --data-dir and --database.`, {
    exitCode: ExitCode.localState,
    cause: error,
  });
}
