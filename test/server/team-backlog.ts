import pg from 'pg';
import { withContentId } from '../../src/core/content-id.js';
import { LOCK_VIEW, PostgresStorage } from '../../src/server/storage/postgres.js';
import { SqliteStorage } from '../../src/server/storage/sqlite.js';
import type { StoredItem, TraceStorage } from '../../src/server/storage/types.js';
import type { ServiceHandle } from '../helpers/service.js';

/**
 * Rows behind the team view on a running `tracer serve`, made from the test's
 * own connection to its database: stored as an upload stores them, but with no
 * upload to fold them in, so the next page finds them waiting. A project gets
 * an id of its own far above the service's sequence, so that on PostgreSQL its
 * fold lock (an advisory lock: database-wide, not per schema) is nobody else's.
 */
export async function serviceStorage(service: ServiceHandle): Promise<TraceStorage> {
  return service.backend === 'postgres' ? PostgresStorage.open(service.databaseUrl!) : SqliteStorage.open(service.dataDir);
}

export async function projectWithId(storage: TraceStorage, org: string, slug: string): Promise<number> {
  const id = 900_000_000 + Math.floor(Math.random() * 100_000_000);
  await storage.execute('INSERT INTO projects (id, org_slug, project_slug) VALUES (?, ?, ?)', [id, org, slug]);
  return id;
}

/** `count` traces of one session, a minute apart from `start` on. */
export function sessionTraces(conversationId: string, count: number, start = Date.UTC(2025, 5, 1)): StoredItem[] {
  return Array.from({ length: count }, (_, n) => {
    const ts = new Date(start + n * 60_000).toISOString();
    const record = withContentId(
      { ts, conversation_id: conversationId, agent: 'claude-code', model: 'claude-sonnet-4-5', files: [{ path: `src/f${n % 5}.ts` }] },
      'id',
    ) as unknown as { id: string };
    return { key: record.id, tsMillis: Date.parse(ts), body: JSON.stringify(record) };
  });
}

/**
 * PostgreSQL only: holds the lock every fold of the project takes, so the
 * service's folds wait until the returned function releases it.
 */
export async function holdFoldLock(service: ServiceHandle, projectId: number): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: service.databaseUrl! });
  await client.connect();
  await client.query('SELECT pg_advisory_lock($1, $2)', [LOCK_VIEW, projectId]);
  return async () => {
    await client.query('SELECT pg_advisory_unlock($1, $2)', [LOCK_VIEW, projectId]);
    await client.end();
  };
}

/** Asks until `done` says yes, at most `ms`. */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`still not there after ${ms} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
