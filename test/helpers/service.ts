import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { BIN, cleanEnv, tempDir } from './cli.js';

/**
 * A real trace service on 127.0.0.1 for tests, with an admin secret, on either
 * backend. `startService` runs it in this process (fast); `spawnService` runs
 * `node bin/tracer.js serve` as a child (needs `npm run build`; it can be SIGKILLed).
 * Both return the same handle. Call `stopAllServices()` in `test.after`.
 */
export interface ServiceOptions {
  backend?: 'sqlite' | 'postgres';
  /** Routes answering 404 as if absent: a family name (e.g. 'summaries'), 'blobs' or 'whoami'. */
  disableRoutes?: string[];
  blobMaxBytes?: number;
  bodyMaxBytes?: number;
  idleTimeoutMs?: number;
  /** In-process only: listen on this port (default any free one), e.g. to come back where a stopped service was. */
  port?: number;
  /** SQLite data folder; default a fresh temp folder. Reuse one to see earlier data. */
  dataDir?: string;
  /** PostgreSQL URL (search_path included); default a fresh schema on TRACER_TEST_POSTGRES_URL. */
  databaseUrl?: string;
  /** Extra plugin modules (absolute paths) enabling custom families. */
  plugins?: string[];
  /** Default a random secret; `null` starts the service with admin routes off. */
  adminSecret?: string | null;
  logLevel?: string;
  /** Team view sign-in attempts per address and minute (the service's default is 10). */
  signInsPerMinute?: number;
  /** `--allow-secrets`: the service stores uploads that still hold a secret (default: refused, 422 secret_detected). */
  allowSecrets?: boolean;
}

export interface ServiceHandle {
  /** `http://127.0.0.1:<port>`, the base of a standalone remote URL (`${url}/<org>/<project>`). */
  url: string;
  adminSecret: string | undefined;
  backend: 'sqlite' | 'postgres';
  dataDir: string;
  databaseUrl: string | undefined;
  /** Registers org/project through the admin route (200 or 201 both fine). */
  createProject(org: string, project: string): Promise<void>;
  /** A new token through the admin route; without `project` it is org-wide. */
  createToken(input: { org: string; project?: string; name?: string }): Promise<string>;
  /** Graceful stop (SIGTERM for a child); resolves once it is down. */
  stop(): Promise<void>;
  /** Abrupt stop: SIGKILL for a child, every connection cut in-process. */
  kill(): Promise<void>;
  /** Starts it again on the same port and the same data. */
  restart(): Promise<void>;
  /** Child only: everything it printed so far. */
  output(): { stdout: string; stderr: string };
  /** Child only: its exit code once stopped. */
  exitCode(): number | null;
  /** Child only: its process id (benchmarks read its memory from /proc). */
  pid(): number | undefined;
}

export const TEST_POSTGRES_URL = process.env.TRACER_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test';

const running = new Set<ServiceHandle>();
const schemas: string[] = [];
const databases: string[] = [];

export async function startService(options: ServiceOptions = {}): Promise<ServiceHandle> {
  const { startService: start } = await import('../../src/server/service.js');
  const { loadServiceFamilies } = await import('../../src/server/families.js');
  const { resolveServeOptions } = await import('../../src/server/options.js');
  const setup = await prepare(options);
  const home = tempDir('tracer-serve-home-');
  const { families, kernel } = await loadServiceFamilies({ home, cwd: process.cwd(), env: {}, extraPlugins: options.plugins ?? [] });
  const { createSecretGate } = await import('../../src/redact/gate.js');
  const gate = options.allowSecrets ? undefined : (await createSecretGate(kernel, { home, env: {} })).gate;
  const serveOptions = (port: number) =>
    resolveServeOptions(
      {
        host: '127.0.0.1',
        port: String(port),
        dataDir: setup.dataDir,
        database: setup.databaseUrl,
        blobMaxBytes: options.blobMaxBytes === undefined ? undefined : String(options.blobMaxBytes),
        bodyMaxBytes: options.bodyMaxBytes === undefined ? undefined : String(options.bodyMaxBytes),
        idleTimeoutMs: options.idleTimeoutMs === undefined ? undefined : String(options.idleTimeoutMs),
        disableRoute: options.disableRoutes ?? [],
        logLevel: options.logLevel ?? 'silent',
        signInsPerMinute: options.signInsPerMinute === undefined ? undefined : String(options.signInsPerMinute),
      },
      setup.adminSecret ? { TRACER_ADMIN_SECRET: setup.adminSecret } : {},
      home,
    );
  let service = await start(serveOptions(options.port ?? 0), families, gate);
  const port = service.port;
  const handle: ServiceHandle = {
    ...adminClient(service.url, setup.adminSecret),
    url: service.url,
    adminSecret: setup.adminSecret,
    backend: setup.backend,
    dataDir: setup.dataDir,
    databaseUrl: setup.databaseUrl,
    stop: async () => {
      running.delete(handle);
      await service.close();
    },
    kill: async () => {
      running.delete(handle);
      await service.destroy();
    },
    restart: async () => {
      await service.close();
      service = await start(serveOptions(port), families, gate);
      running.add(handle);
    },
    output: () => ({ stdout: '', stderr: '' }),
    exitCode: () => null,
    pid: () => undefined,
  };
  running.add(handle);
  return handle;
}

export async function spawnService(options: ServiceOptions = {}): Promise<ServiceHandle> {
  const setup = await prepare(options);
  const home = tempDir('tracer-serve-home-');
  let child: ChildProcess;
  let stdout = '';
  let stderr = '';
  let exited: Promise<number | null> = Promise.resolve(null);
  let code: number | null = null;
  const launch = async (port: number): Promise<string> => {
    const args = [
      'serve',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--data-dir',
      setup.dataDir,
      '--log-level',
      options.logLevel ?? 'warn',
    ];
    if (setup.databaseUrl) args.push('--database', setup.databaseUrl);
    if (options.blobMaxBytes !== undefined) args.push('--blob-max-bytes', String(options.blobMaxBytes));
    if (options.bodyMaxBytes !== undefined) args.push('--body-max-bytes', String(options.bodyMaxBytes));
    for (const route of options.disableRoutes ?? []) args.push('--disable-route', route);
    for (const plugin of options.plugins ?? []) args.push('--plugins', plugin);
    if (options.signInsPerMinute !== undefined) args.push('--sign-ins-per-minute', String(options.signInsPerMinute));
    if (options.allowSecrets) args.push('--allow-secrets');
    const env: NodeJS.ProcessEnv = { ...cleanEnv(), TRACER_HOME: home, NO_COLOR: '1' };
    if (setup.adminSecret) env.TRACER_ADMIN_SECRET = setup.adminSecret;
    child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    code = null;
    exited = new Promise((resolve) => child.once('exit', (exitCode) => resolve((code = exitCode))));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const from = stdout.length;
    return new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
        const url = /listening on (http:\/\/\S+?),/.exec(stdout.slice(from))?.[1];
        if (url) resolve(url);
      });
      void exited.then((exitCode) => reject(new Error(`tracer serve exited with ${exitCode} before listening:\n${stdout}${stderr}`)));
    });
  };
  const url = await launch(0);
  const port = Number(new URL(url).port);
  const signal = async (name: NodeJS.Signals) => {
    running.delete(handle);
    if (code === null && child.exitCode === null) child.kill(name);
    await exited;
  };
  const handle: ServiceHandle = {
    ...adminClient(url, setup.adminSecret),
    url,
    adminSecret: setup.adminSecret,
    backend: setup.backend,
    dataDir: setup.dataDir,
    databaseUrl: setup.databaseUrl,
    stop: () => signal('SIGTERM'),
    kill: () => signal('SIGKILL'),
    restart: async () => {
      await signal('SIGTERM');
      await launch(port);
      running.add(handle);
    },
    output: () => ({ stdout, stderr }),
    exitCode: () => code,
    pid: () => child.pid,
  };
  running.add(handle);
  return handle;
}

/** Stops every service started by this file and drops the PostgreSQL schemas and databases it made. */
export async function stopAllServices(): Promise<void> {
  await Promise.all([...running].map((handle) => handle.stop().catch(() => {})));
  if (schemas.length) {
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await client.connect();
    for (const schema of schemas.splice(0)) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  }
  if (databases.length) {
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await client.connect();
    for (const database of databases.splice(0)) await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await client.end();
  }
}

/** Whether a PostgreSQL server answers at TRACER_TEST_POSTGRES_URL. */
export async function postgresAvailable(): Promise<boolean> {
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Runs `register` (which defines and runs a suite) when PostgreSQL answers; otherwise
 * says SKIPPED, loudly, or fails when TRACER_TEST_REQUIRE_POSTGRES=1 (.ci/run).
 */
export async function onPostgres(what: string, register: () => void): Promise<void> {
  if (await postgresAvailable()) return register();
  if (process.env.TRACER_TEST_REQUIRE_POSTGRES === '1') {
    const { test } = await import('uvu');
    test('PostgreSQL is required (TRACER_TEST_REQUIRE_POSTGRES=1)', () => {
      throw new Error(`No PostgreSQL answers at ${TEST_POSTGRES_URL}; start one or set TRACER_TEST_POSTGRES_URL.`);
    });
    test.run();
    return;
  }
  console.log(
    `\n  SKIPPED: ${what}: no PostgreSQL answers at ${TEST_POSTGRES_URL} (set TRACER_TEST_POSTGRES_URL, or TRACER_TEST_REQUIRE_POSTGRES=1 to fail instead)\n`,
  );
}

/** A fresh schema on the test server, dropped by stopAllServices(); the URL sets search_path to it. */
export async function freshPostgresSchema(): Promise<string> {
  const pg = (await import('pg')).default;
  const schema = `tracer_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA "${schema}"`);
  } finally {
    await client.end();
  }
  schemas.push(schema);
  const url = new URL(TEST_POSTGRES_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

/**
 * A database of its own on the test server, dropped by stopAllServices(): for a test that needs what
 * PostgreSQL keeps per database, such as VACUUM's horizon. Dead tuples of ordinary tables are removable
 * once no transaction of the same database can still see them; in the shared `test` database, another
 * test's open transaction keeps them. Made from template0, which no session ever connects to (CREATE
 * DATABASE fails while its template has other sessions).
 */
export async function freshPostgresDatabase(): Promise<string> {
  const pg = (await import('pg')).default;
  const database = `tracer_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${database}" TEMPLATE template0`);
  } finally {
    await client.end();
  }
  databases.push(database);
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

async function prepare(options: ServiceOptions) {
  const backend = options.backend ?? (options.databaseUrl ? 'postgres' : 'sqlite');
  const adminSecret = options.adminSecret === null ? undefined : (options.adminSecret ?? `admin-${randomBytes(16).toString('hex')}`);
  const dataDir = options.dataDir ?? join(tempDir('tracer-serve-'), 'data');
  const databaseUrl = backend === 'postgres' ? (options.databaseUrl ?? (await freshPostgresSchema())) : undefined;
  return { backend, adminSecret, dataDir, databaseUrl } as const;
}

function adminClient(url: string, adminSecret: string | undefined) {
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminSecret ?? ''}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status !== 200 && response.status !== 201) throw new Error(`POST ${path} answered ${response.status}: ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  return {
    createProject: async (org: string, project: string) => {
      await post('/api/v1/admin/projects', { org_slug: org, project_slug: project });
    },
    createToken: async ({ org, project, name }: { org: string; project?: string; name?: string }) => {
      const created = await post('/api/v1/admin/tokens', { org_slug: org, project_slug: project ?? null, name: name ?? 'test' });
      return created.token as string;
    },
  };
}
