import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { FamilyDefinition } from '../kernel/families.js';
import { buildApp } from './app.js';
import type { ServiceContext } from './context.js';
import { checkDisabledRoutes, type ServeOptions } from './options.js';
import type { TraceStorage } from './storage/types.js';
import { ViewRefresher } from './team/refresher.js';
import type { SecretGate } from '../redact/gate.js';
import { formatAge, parseRetainFlag, RetentionSchedule } from './privacy/retention.js';
import { signingKey } from './privacy/tombstones.js';
import { servicePrices, usageRefresher } from './team/usage.js';
import { searchRefresher } from './team/search-index.js';

export interface RunningService {
  /** `http://<host>:<port>` where it listens (the real port when 0 was asked). */
  url: string;
  port: number;
  storage: TraceStorage;
  app: FastifyInstance;
  /** The first line `tracer serve` prints: where it listens, which backend, where the data lives. */
  startupLine: string;
  /**
   * Graceful stop: no new connections, in-flight requests finish, idle
   * connections close, then the database closes. Safe to call twice.
   */
  close(): Promise<void>;
  /** Abrupt stop (tests): every connection is cut, then the database closes. */
  destroy(): Promise<void>;
}

export async function openStorage(options: ServeOptions): Promise<TraceStorage> {
  if (options.databaseUrl) {
    const { PostgresStorage } = await import('./storage/postgres.js');
    return PostgresStorage.open(options.databaseUrl);
  }
  const { SqliteStorage } = await import('./storage/sqlite.js');
  return SqliteStorage.open(options.dataDir);
}

/** `gate`: the secret gate (src/redact/gate.ts); without one, uploads are not scanned (--allow-secrets). */
export async function startService(
  options: ServeOptions,
  families: readonly FamilyDefinition[],
  gate?: SecretGate,
): Promise<RunningService> {
  checkDisabledRoutes(
    options.disabledRoutes,
    families.map((family) => family.name),
  );
  const retention = parseRetainFlag(
    options.retain,
    families.map((family) => family.name),
  );
  const storage = await openStorage(options);
  // Made on the first start, so that every backup holds it: a restored service still knows its own tombstones.
  await signingKey(storage).catch(async (error: unknown) => {
    await storage.close();
    throw error;
  });
  // The refreshers log through the app's logger, made just below (they log only once requests run).
  const prices = servicePrices(options.pricesHome);
  const usage = usageRefresher(storage, prices, () => app.log);
  const search = searchRefresher(storage, () => app.log);
  const view = new ViewRefresher(
    storage,
    () => app.log,
    (projectId) => {
      usage.schedule(projectId);
      search.schedule(projectId);
    },
  );
  const context: ServiceContext = {
    storage,
    families,
    options,
    routeEnabled: (name) => !options.disabledRoutes.includes(name),
    view,
    gate,
    retention,
    usage,
    prices,
    search,
  };
  const schedule = new RetentionSchedule({
    storage,
    families,
    servicePolicy: retention,
    delayMs: options.retentionDelayMs,
    intervalMs: options.retentionIntervalMs,
    log: () => app.log,
  });
  const app = buildApp(context);
  let closing = false;
  // Once stopping, every answer says Connection: close, so kept-alive connections end after their request.
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });
  try {
    await app.ready();
    await new Promise<void>((resolve, reject) => {
      app.server.once('error', reject);
      // Fastify's own listen() would log first; the start-up line must be the first thing printed.
      app.server.listen(options.port, options.host, () => {
        app.server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await app.close().catch(() => {});
    await storage.close();
    throw error;
  }
  const { port } = app.server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const url = `http://${host}:${port}`;
  const where = storage.backend === 'sqlite' ? `data in ${storage.location}` : `data in ${storage.location} (rows and blobs)`;
  const admin = options.adminSecret ? 'admin routes on' : 'admin routes off (set TRACER_ADMIN_SECRET to enable them)';
  const retain = Object.keys(retention).length
    ? `, retaining ${Object.entries(retention)
        .map(([name, ms]) => `${name} ${formatAge(ms)}`)
        .join(', ')}`
    : '';
  const startupLine = `tracer serve listening on ${url}, backend ${storage.backend}, ${where}, ${admin}${retain}`;
  schedule.start();

  let stopped: Promise<void> | undefined;
  const stop = (abrupt: boolean) =>
    (stopped ??= (async () => {
      closing = true;
      const closed = new Promise<void>((resolve) => app.server.close(() => resolve()));
      if (abrupt) app.server.closeAllConnections();
      else app.server.closeIdleConnections();
      await closed;
      await app.close();
      await schedule.stop();
      await view.stop();
      await usage.stop();
      await search.stop();
      await storage.close();
    })());
  return { url, port, storage, app, startupLine, close: () => stop(false), destroy: () => stop(true) };
}
