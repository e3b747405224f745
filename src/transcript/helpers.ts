// Small helpers transcript readers share: times agents write as numbers, and,
// for an agent that keeps its conversation in a database (goose, Kiro CLI),
// rows read from it and written out as the JSON lines tracer snapshots.
import { isObject } from './tool-input.js';

/** Milliseconds (or seconds, for a number too small to be milliseconds) since 1970 as ISO 8601; undefined for anything else. */
export function millisToIso(value: unknown): string | undefined {
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value)) return value;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return undefined;
  const millis = value < 1e11 ? value * 1000 : value;
  const date = new Date(millis);
  return Number.isNaN(date.getTime()) || date.getUTCFullYear() > 9999 ? undefined : date.toISOString();
}

/**
 * The rows a query returns from a SQLite database the agent owns, opened read
 * only (the agent may be writing it: a busy database is waited on for a few
 * seconds). better-sqlite3 is imported here, on first use, never by a hook
 * that does not need it.
 */
export async function* sqliteRows(path: string, sql: string, parameters: readonly unknown[] = []): AsyncGenerator<Record<string, unknown>> {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(path, { readonly: true, fileMustExist: true, timeout: 5_000 });
  try {
    for (const row of db.prepare(sql).iterate(...parameters)) if (isObject(row)) yield row;
  } finally {
    db.close();
  }
}

/** Values as JSON lines, a few hundred KB per chunk: what a database-backed agent's snapshot is made of. */
export async function* jsonLines(values: AsyncIterable<unknown> | Iterable<unknown>): AsyncGenerator<Buffer> {
  let batch: string[] = [];
  let bytes = 0;
  for await (const value of values) {
    const line = JSON.stringify(value);
    if (line === undefined) continue;
    batch.push(line);
    bytes += line.length;
    if (bytes >= 256 * 1024) {
      yield Buffer.from(`${batch.join('\n')}\n`, 'utf8');
      batch = [];
      bytes = 0;
    }
  }
  if (batch.length > 0) yield Buffer.from(`${batch.join('\n')}\n`, 'utf8');
}
