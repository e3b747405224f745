import type { Test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import type { Fixture } from './fixture.js';
import { soloService } from './fixture.js';
import { trace } from './http.js';

/** What lands in the database: token hashes only, data surviving a restart. */
export function storageCases(test: Test<{ fixture: Fixture }>): void {
  test('tokens are stored only as hashes', async ({ fixture }) => {
    const { service, token } = await soloService(fixture);
    const stored = await tokenColumns(service.backend, service.dataDir, service.databaseUrl);
    assert.ok(stored.length > 0);
    assert.not.ok(
      stored.some((row) => Object.values(row).some((value) => typeof value === 'string' && value.includes(token))),
      'the token itself is nowhere',
    );
    assert.ok(stored.some((row) => /^[0-9a-f]{64}$/.test(String(row.hash))));
    await service.stop();
  });

  test('data survives a restart on the same storage', async ({ fixture }) => {
    const { service, client } = await soloService(fixture);
    const item = trace();
    await client.push('traces', [item]);
    await service.restart();
    const pulled = await client.pullAll('traces');
    assert.equal(
      pulled.map((row) => row.id),
      [item.id],
    );
    assert.is((await client.push('traces', [item])).json.duplicates, 1);
    await service.stop();
  });
}

async function tokenColumns(backend: string, dataDir: string, databaseUrl: string | undefined): Promise<Array<Record<string, unknown>>> {
  if (backend === 'sqlite') {
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(join(dataDir, 'tracer.db'), { readonly: true });
    try {
      return db.prepare('SELECT * FROM tokens').all() as Array<Record<string, unknown>>;
    } finally {
      db.close();
    }
  }
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query('SELECT * FROM tokens')).rows;
  } finally {
    await client.end();
  }
}
