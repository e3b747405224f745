import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { postgresAvailable, startService, TEST_POSTGRES_URL, type ServiceHandle, type ServiceOptions } from '../helpers/service.js';
import { clientFor, commitLink, conversation, ledger, sha256, summary, trace, type Client } from '../server/http.js';

/**
 * Shared by the hostile-input and tenancy suites: a real service with three
 * tenants and seeded data, raw HTTP (so nothing normalizes what we send), the
 * problem+json check every refusal must pass, and a snapshot of everything stored
 * (through the pull routes AND straight from the database) to prove refusals
 * changed nothing.
 */

/** `TRACER_SOAK=1` runs many more cases (docs/reliability.md). */
export const SOAK = process.env.TRACER_SOAK === '1';
/** fast-check seed: fixed, so a failure replays; TRACER_FUZZ_SEED picks another, soak mode a fresh one. */
export const FUZZ_SEED = process.env.TRACER_FUZZ_SEED ? Number(process.env.TRACER_FUZZ_SEED) : SOAK ? Date.now() % 2 ** 31 : 0x7ace;
export const runs = (normal: number, soak: number) => ({ numRuns: SOAK ? soak : normal, seed: FUZZ_SEED, includeErrorInReport: true });

export const FAMILIES = ['traces', 'ledgers', 'commit-links', 'conversations', 'summaries'] as const;
export const TS = '2024-05-01T12:00:00.000Z';

export interface Tenants {
  backend: 'sqlite' | 'postgres';
  service: ServiceHandle;
  tokens: { web: string; api: string; acmeOrg: string; shop: string; globexOrg: string };
  web: Client;
  api: Client;
  shop: Client;
  /** Blobs each project uploaded (held by that project only). */
  blobs: { web: string; shop: string };
}

/** Org acme (web, api) and org globex (shop), each project seeded with every family and a blob. */
export async function tenants(backend: 'sqlite' | 'postgres', options: ServiceOptions = {}): Promise<Tenants> {
  const service = await startService({ backend, ...options });
  await service.createProject('acme', 'web');
  await service.createProject('acme', 'api');
  await service.createProject('globex', 'shop');
  const tokens = {
    web: await service.createToken({ org: 'acme', project: 'web', name: 'web' }),
    api: await service.createToken({ org: 'acme', project: 'api', name: 'api' }),
    acmeOrg: await service.createToken({ org: 'acme', name: 'acme-org' }),
    shop: await service.createToken({ org: 'globex', project: 'shop', name: 'shop' }),
    globexOrg: await service.createToken({ org: 'globex', name: 'globex-org' }),
  };
  const web = clientFor(service, tokens.web, 'acme', 'web');
  const api = clientFor(service, tokens.api, 'acme', 'api');
  const shop = clientFor(service, tokens.shop, 'globex', 'shop');
  const blobs = { web: '', shop: '' };
  for (const [name, client] of [
    ['web', web],
    ['api', api],
    ['shop', shop],
  ] as const) {
    for (const [family, rows] of [
      ['traces', [trace({ tenant: name }), trace({ tenant: name, note: 'שלום \u202e RTL' })]],
      ['ledgers', [ledger({ tenant: name })]],
      ['commit-links', [commitLink({ tenant: name })]],
      ['summaries', [summary({ tenant: name })]],
      ['conversations', [conversation(Buffer.from(`small transcript of ${name}`), true)]],
    ] as const) {
      const reply = await client.push(family, [...rows]);
      assert.is(reply.status, 200, reply.text);
    }
    if (name !== 'api') {
      const bytes = Buffer.from(`large-ish transcript held by ${name} only ${'x'.repeat(1000)}`);
      assert.is((await client.uploadBlob(bytes)).status, 201);
      blobs[name] = sha256(bytes);
      const pointer = await client.push('conversations', [conversation(bytes, false)]);
      assert.is(pointer.status, 200, pointer.text);
    }
  }
  return { backend, service, tokens, web, api, shop, blobs };
}

/** Runs `suite` on SQLite always, on PostgreSQL when one answers (TRACER_TEST_REQUIRE_POSTGRES=1: must). */
export async function backends(): Promise<Array<'sqlite' | 'postgres'>> {
  if (await postgresAvailable()) return ['sqlite', 'postgres'];
  if (process.env.TRACER_TEST_REQUIRE_POSTGRES === '1')
    throw new Error(`No PostgreSQL answers at ${TEST_POSTGRES_URL}; start one or set TRACER_TEST_POSTGRES_URL.`);
  console.log(`\n  SKIPPED: PostgreSQL runs of the hostile-input and tenancy suites: no PostgreSQL at ${TEST_POSTGRES_URL}\n`);
  return ['sqlite'];
}

export interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

/**
 * One request through node:http with the path sent exactly as given (fetch would
 * resolve "..", re-encode and normalize). Headers may repeat: pass [name, value] pairs.
 */
export function rawRequest(
  base: string,
  method: string,
  path: string,
  headers: Array<[string, string]>,
  body?: string | Buffer,
): Promise<RawReply> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const flat: string[] = [];
    // With raw header pairs node:http adds no Host of its own.
    if (!headers.some(([name]) => name.toLowerCase() === 'host')) flat.push('host', url.host);
    for (const [name, value] of headers) flat.push(name, value);
    if (body !== undefined) flat.push('content-length', String(Buffer.byteLength(body)));
    const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers: flat, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Bytes straight onto a socket: lying Content-Length, bodies cut short, anything
 * Node's own client refuses to send. Resolves with everything the service answered
 * once it closes the connection. `halfClose` shuts our sending side after the bytes,
 * as a client that died mid-body would (only for cut bodies: Node's server, not being
 * half-open, drops a complete request whose sender shut its side early).
 */
export function rawSocket(base: string, bytes: Buffer | string, options: { halfClose: boolean }): Promise<string> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(bytes);
      if (options.halfClose) socket.end();
    });
    const chunks: Buffer[] = [];
    // A safety net, not a timing assertion: a service that never closes fails on "no answer", not by hanging the run.
    socket.setTimeout(15_000, () => socket.destroy());
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNRESET' || error.code === 'EPIPE' ? undefined : reject(error),
    );
  });
}

/** Splits what rawSocket got into responses (status, headers, body), using Content-Length. */
export function parseResponses(text: string): RawReply[] {
  const replies: RawReply[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/1.1 ')) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    const bodyText = Buffer.from(rest.slice(end + 4), 'latin1')
      .subarray(0, length)
      .toString('utf8');
    let json: unknown;
    try {
      json = JSON.parse(bodyText);
    } catch {
      json = undefined;
    }
    replies.push({ status: Number(statusLine!.split(' ')[1]), headers, text: bodyText, json });
    rest = rest.slice(end + 4 + Buffer.byteLength(bodyText, 'latin1'));
  }
  return replies;
}

const SNAKE_CASE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

/**
 * The promise every refusal keeps: a 4xx, application/problem+json, a snake_case
 * code, a request id equal to X-Request-Id. HEAD answers carry no body, so only
 * the status, type and request id header are checked there.
 */
export function assertRefusal(reply: RawReply, context: string, method = 'GET'): void {
  const where = `${context}\n→ ${reply.status} ${reply.text.slice(0, 300)}`;
  assert.ok(reply.status >= 400 && reply.status < 500, `not a 4xx: ${where}`);
  const type = String(reply.headers['content-type'] ?? '');
  assert.ok(type.startsWith('application/problem+json'), `content-type ${type}: ${where}`);
  const requestId = reply.headers['x-request-id'];
  assert.ok(typeof requestId === 'string' && requestId.length > 0, `no X-Request-Id: ${where}`);
  if (method === 'HEAD') return;
  assert.ok(reply.json && typeof reply.json === 'object', `body is not JSON: ${where}`);
  assert.ok(SNAKE_CASE.test(reply.json.code), `code ${JSON.stringify(reply.json.code)} is not snake_case: ${where}`);
  assert.is(reply.json.status, reply.status, where);
  assert.is(reply.json.request_id, requestId, where);
  for (const member of ['type', 'title', 'detail']) assert.type(reply.json[member], 'string', `${member}: ${where}`);
}

export async function assertAlive(service: ServiceHandle): Promise<void> {
  const reply = await rawRequest(service.url, 'GET', '/healthz', []);
  assert.is(reply.status, 200, `healthz: ${reply.status} ${reply.text}`);
}

/** Every row each project can pull, every blob HEAD, and a digest of every database table. */
export async function snapshot(t: Tenants): Promise<string> {
  const view: Record<string, unknown> = {};
  for (const [name, client] of [
    ['web', t.web],
    ['api', t.api],
    ['shop', t.shop],
  ] as const) {
    for (const family of FAMILIES) view[`${name}/${family}`] = await client.pullAll(family);
    for (const [owner, sha] of Object.entries(t.blobs)) {
      const head = await client.head(`/api/v1/blobs/${sha}`);
      view[`${name}/blob-of-${owner}`] = head.status;
    }
  }
  view.tables = await tableDigest(t.service);
  return JSON.stringify(view);
}

/**
 * Row counts and a hash of every row of every table the service keeps (tokens and projects
 * included), except the team view's `view_*` tables: they are folded in from `items` in the
 * background whenever uploads pause, so they change after set-up whatever the test sends,
 * and `items` they are derived from is in the digest; the search index's `search_*` tables
 * (issue 32), made from the same rows after each fold (FTS5's own tables among them); and the
 * audit log's `audit_*` tables (issue 31), which record every transcript read, this digest's
 * own pulls included.
 */
async function tableDigest(service: ServiceHandle): Promise<Record<string, string>> {
  const digest: Record<string, string> = {};
  const derived = (name: string) => /^(view|search|audit)_/.test(name);
  const hash = (rows: unknown[]) => `${rows.length}:${createHash('sha256').update(JSON.stringify(rows)).digest('hex')}`;
  if (service.backend === 'sqlite') {
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(join(service.dataDir, 'tracer.db'), { readonly: true, fileMustExist: true });
    try {
      const tables = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        .all() as Array<{ name: string }>;
      for (const { name } of tables) if (!derived(name)) digest[name] = hash(db.prepare(`SELECT * FROM "${name}" ORDER BY rowid`).all());
    } finally {
      db.close();
    }
    return digest;
  }
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: service.databaseUrl });
  await client.connect();
  try {
    const tables = await client.query(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name',
    );
    for (const { table_name: name } of tables.rows) {
      if (derived(name)) continue;
      // Ordered by the whole row: tables of one column (the migrations list) have no second one to sort by.
      const rows = await client.query(`SELECT * FROM "${name}" AS t ORDER BY t::text`);
      digest[name] = hash(rows.rows);
    }
  } finally {
    await client.end();
  }
  return digest;
}
