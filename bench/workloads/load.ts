// Workload 7: 20 `tracer push --full` processes at once against one service,
// each with a window of one shared pool of traces, the windows overlapping so
// that every trace is sent by several clients. Afterwards the service must hold
// each trace exactly once, and every client must have exited 0.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clientHome, runFolder, startBenchService, type BenchService, type ClientHome } from '../environment.js';
import { measure, round } from '../measure.js';
import type { Result } from '../report.js';

export interface LoadOptions {
  tracesFile: string;
  pool: number;
  clients: number;
  /** Traces per client; > pool / clients makes the windows overlap. */
  window: number;
}

export async function loadWorkload(
  options: LoadOptions,
  backends: ReadonlyArray<'sqlite' | 'postgres'>,
  log: (line: string) => void,
): Promise<Result[]> {
  const pool = readFileSync(options.tracesFile, 'utf8').split('\n').filter(Boolean).slice(0, options.pool);
  const step = Math.floor(pool.length / options.clients);
  const results: Result[] = [];
  for (const backend of backends) {
    const dir = runFolder(`load-${backend}`);
    const service = await startBenchService({ backend, dataDir: join(dir, 'service') });
    try {
      const token = await service.project('load');
      const clients: ClientHome[] = [];
      let repo: string | undefined;
      let sent = 0;
      for (let c = 0; c < options.clients; c += 1) {
        const client = await clientHome(join(dir, `client-${c}`), { url: service.remoteUrl('load'), token }, repo);
        repo = client.repo;
        const lines = Array.from({ length: options.window }, (_, n) => pool[(c * step + n) % pool.length]!);
        writeFileSync(join(client.projectDir, 'traces.jsonl'), `${lines.join('\n')}\n`);
        sent += lines.length;
        clients.push(client);
      }
      const started = process.hrtime.bigint();
      const outcomes = await Promise.all(clients.map((client) => measure(client.spec(['push', '--full', '--quiet']))));
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      const failed = outcomes.filter((outcome) => outcome.code !== 0);
      for (const outcome of failed.slice(0, 3)) log(`  a client failed (${outcome.code}): ${outcome.stderr.trim().slice(0, 400)}`);
      const held = await countRows(service, token);
      const expected = new Set(pool.slice(0, Math.min(pool.length, step * (options.clients - 1) + options.window))).size;
      const duplicates = held.rows - held.distinct;
      const complete = held.distinct === expected;
      log(
        `  ${backend}: ${sent} items sent by ${options.clients} clients in ${round(wallMs)} ms, ${held.rows} rows held (${held.distinct} distinct of ${expected}), ${failed.length} failed`,
      );
      results.push({
        workload: `7. load, ${backend}`,
        size: `${options.clients} clients × ${options.window} traces, ${expected} distinct`,
        tracerMs: round(wallMs),
        bar: 'no duplicates, no errors',
        pass: failed.length === 0 && duplicates === 0 && complete,
        notes: `${Math.round(expected / (wallMs / 1000))} new rows/s, ${Math.round(sent / (wallMs / 1000))} items/s received; ${duplicates} duplicates, ${failed.length} errors${complete ? '' : `, ${expected - held.distinct} missing`}`,
      });
    } finally {
      await service.handle.stop();
    }
  }
  return results;
}

/** Every trace row the service holds, through the pull route: how many, and how many distinct ids. */
async function countRows(service: BenchService, token: string): Promise<{ rows: number; distinct: number }> {
  const ids = new Set<string>();
  let rows = 0;
  let after = '';
  const headers = { authorization: `Bearer ${token}`, 'x-tracer-org': 'bench', 'x-tracer-project': 'load' };
  for (;;) {
    const response = await fetch(
      `${service.handle.url}/api/v1/sync/traces?limit=1000${after ? `&after=${encodeURIComponent(after)}` : ''}`,
      { headers },
    );
    if (response.status !== 200) throw new Error(`GET traces answered ${response.status}`);
    const page = (await response.json()) as { items: Array<{ id: string }>; next_cursor: string; has_more: boolean };
    rows += page.items.length;
    for (const item of page.items) ids.add(item.id);
    if (!page.has_more) break;
    after = page.next_cursor;
  }
  return { rows, distinct: ids.size };
}
