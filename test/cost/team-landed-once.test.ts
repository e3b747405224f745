import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { withContentId } from '../../src/core/content-id.js';
import { PostgresStorage } from '../../src/server/storage/postgres.js';
import { SqliteStorage } from '../../src/server/storage/sqlite.js';
import type { TraceStorage } from '../../src/server/storage/types.js';
import { ServiceDataSource } from '../../src/server/team/data-source.js';
import { cleanup, tempDir } from '../helpers/cli.js';
import { freshPostgresSchema, postgresAvailable, stopAllServices } from '../helpers/service.js';

/**
 * The team view's landed lines, as `tracer stats --cost` counts them: a squash
 * merge made with the hooks on gets a ledger of its own that attributes the
 * branch commit's trace lines again (claims allow it on another history), and
 * the cost page counted both, so landed exceeded written. Ledgers here are
 * shaped as the post-commit hook writes them (trace_ids, parents).
 */
const CONVERSATION = 'a11ce000-0000-4000-8000-00000000c0de';
const sha = (text: string) => createHash('sha1').update(text).digest('hex');
const traceId = (text: string) => createHash('sha256').update(text).digest('hex');

function ledger(commit: string, ts: string, parents: string[], traces: string[], aiLines: number) {
  const conversations =
    aiLines === 0
      ? [{ contributor: { type: 'human' }, ranges: [{ start_line: 1, end_line: 1 }] }]
      : [
          {
            url: `claude-code://session/${CONVERSATION}`,
            contributor: { type: 'ai', model_id: 'anthropic/claude-sonnet-4-20250514' },
            ranges: [{ start_line: 1, end_line: aiLines }],
            related: traces.map((id) => ({ type: 'trace', url: `tracer://trace/${id}` })),
          },
        ];
  return withContentId(
    {
      ts,
      commit,
      trace_ids: traces,
      record: {
        version: '0.1.0',
        timestamp: ts,
        files: [{ path: `src/${commit.slice(0, 6)}.ts`, conversations }],
        metadata: { 'dev.tracer': { lines: { ai: aiLines, human: aiLines === 0 ? 1 : 0 }, parents } },
      },
    },
    'sha',
  ) as unknown as Record<string, unknown>;
}

function trace(id: string, ts: string, lines: number) {
  return {
    id,
    ts,
    conversation_id: CONVERSATION,
    agent: 'claude-code',
    model: 'claude-sonnet-4-20250514',
    files: [{ path: 'src/lru.ts', line_hashes: Array.from({ length: lines }, (_, n) => `h${id.slice(0, 4)}${n}`) }],
  };
}

async function push(storage: TraceStorage, project: number, family: string, records: Array<Record<string, unknown>>) {
  await storage.insertItems(
    project,
    family,
    records.map((record) => ({
      key: String(record.id ?? record.sha),
      tsMillis: Date.parse(String(record.ts)),
      body: JSON.stringify(record),
    })),
    'alice',
  );
}

const org = { hash: 'x'.repeat(64), org_slug: 'acme', project_slug: null, name: 'lead', role: 'read' as const };

test.after(async () => {
  await stopAllServices();
  cleanup();
});

async function landedOnce(storage: TraceStorage): Promise<void> {
  try {
    await storage.createProject('acme', 'app');
    const project = (await storage.findProject('acme', 'app'))!;
    const source = new ServiceDataSource(storage, org, { ready: (id) => storage.refreshView(id) });
    const [lru, rest] = [traceId('lru'), traceId('rest')];
    // The agent wrote 5 lines in one edit, then 5 more in another, of which a first commit took 3.
    await push(storage, project.id, 'traces', [trace(lru, '2026-01-01T10:00:00Z', 5), trace(rest, '2026-01-01T12:00:00Z', 5)]);
    const [base, feat, squash, part, others] = ['base', 'feat', 'squash', 'part', 'others'].map(sha);
    await push(storage, project.id, 'ledgers', [
      ledger(base!, '2026-01-01T09:00:00Z', [], [], 0),
      // On branch feat, then `git merge --squash feat` on main: both ledgers hold the same 5 lines of one trace.
      ledger(feat!, '2026-01-01T10:01:00Z', [base!], [lru], 5),
      ledger(squash!, '2026-01-01T11:00:00Z', [base!], [lru], 5),
      // One history: 3 lines of the second edit, then its other 2 in a child commit.
      ledger(part!, '2026-01-01T12:01:00Z', [squash!], [rest], 3),
      ledger(others!, '2026-01-01T12:02:00Z', [part!], [rest], 2),
    ]);
    const cost = await source.cost('acme/app');
    assert.is(cost.totals.written, 10);
    assert.is(cost.totals.landed, 10, 'the squash and its branch commit land the same 5 lines once');
    assert.equal(
      cost.by_day.map((row) => [row.key, row.landed]),
      [['2026-01-01', 10]],
    );
    assert.equal(
      cost.by_agent.map((row) => [row.key, row.written, row.landed]),
      [['claude-code', 10, 10]],
    );
    // The AI share page counts the same lines once too.
    const share = await source.share('acme/app');
    assert.equal(
      share.by_agent.map((row) => [row.key, row.ai]),
      [['claude-code', 10]],
    );
    assert.equal(
      share.by_day.map((row) => [row.key, row.ai]),
      [['2026-01-01', 10]],
    );
  } finally {
    await storage.close();
  }
}

test('SQLite: a squash-merged line lands once on the cost page; a later commit of the same history using the rest of a trace still counts', async () => {
  await landedOnce(await SqliteStorage.open(tempDir('team-landed-')));
});

test('PostgreSQL: the same', async () => {
  if (!(await postgresAvailable())) return console.log('  SKIPPED: no PostgreSQL for the landed-once case');
  await landedOnce(await PostgresStorage.open(await freshPostgresSchema()));
});

test.run();
