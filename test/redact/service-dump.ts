// Everything a test service holds, as one searchable text: every column of every
// table (SQLite through better-sqlite3, PostgreSQL through pg, so no value is cut
// by a page boundary) and every blob, whole (PostgreSQL's chunks joined in order).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServiceHandle } from '../helpers/service.js';

function text(value: unknown): string {
  if (Buffer.isBuffer(value)) return value.toString('latin1');
  if (value instanceof Uint8Array) return Buffer.from(value).toString('latin1');
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}

export async function serviceContents(service: ServiceHandle): Promise<string> {
  const parts: string[] = [];
  if (service.backend === 'sqlite') {
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(join(service.dataDir, 'tracer.db'), { readonly: true });
    try {
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>;
      for (const { name } of tables)
        for (const row of db.prepare(`SELECT * FROM "${name}"`).all() as object[]) parts.push(...Object.values(row).map(text));
    } finally {
      db.close();
    }
    const blobs = join(service.dataDir, 'blobs');
    const walk = (dir: string) => {
      for (const entry of existsSync(dir) ? readdirSync(dir, { withFileTypes: true }) : []) {
        if (entry.isDirectory()) walk(join(dir, entry.name));
        else parts.push(readFileSync(join(dir, entry.name)).toString('latin1'));
      }
    };
    walk(blobs);
    return parts.join('\n');
  }
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: service.databaseUrl });
  await client.connect();
  try {
    const tables = await client.query(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
    );
    for (const { table_name: name } of tables.rows as Array<{ table_name: string }>) {
      if (name === 'blob_chunks') continue;
      for (const row of (await client.query(`SELECT * FROM "${name}"`)).rows as object[]) parts.push(...Object.values(row).map(text));
    }
    const chunks = await client.query('SELECT sha, data FROM blob_chunks ORDER BY sha, idx');
    const whole = new Map<string, Buffer[]>();
    for (const { sha, data } of chunks.rows as Array<{ sha: string; data: Buffer }>) whole.set(sha, [...(whole.get(sha) ?? []), data]);
    for (const pieces of whole.values()) parts.push(Buffer.concat(pieces).toString('latin1'));
  } finally {
    await client.end();
  }
  return parts.join('\n');
}
