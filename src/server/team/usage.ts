// The team view's token usage: each pushed transcript (the freshest snapshot of
// each conversation, view_transcripts) read once through its agent's reader,
// every request priced, and kept in SQL per conversation, turn, model and day
// (view_usage), so that the cost pages are sums over indexed rows. Which
// snapshot was read, with which price table, and what could not be read is in
// view_usage_state: a newer snapshot or another table reads the conversation
// again. Usage an agent reported in its hook payloads (Cursor) is read from the
// conversation's trace rows when its transcript holds none.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { ProjectRefresher } from './project-refresher.js';
import type { SnapshotUsage } from '../../cost/usage-cache.js';
import { compact } from '../../cost/usage-cache.js';
import { tokensOf } from '../../cost/conversation-cost.js';
import type { PriceTable } from '../../cost/prices.js';
import { AGENT_ID } from '../../core/agent.js';
import { recognizeFormat, transcriptFormat } from '../../transcript/agents.js';
import { streamSource } from '../../transcript/source.js';
import { readUsage, usageFromTraces } from '../../transcript/usage.js';
import type { TraceStorage } from '../storage/types.js';

/** Stale conversations asked for per query; a run goes on until none is left. */
const STALE_PAGE = 1000;
/** Conversations written per batch of statements. */
const BATCH = 50;
/** Transcripts read at once. */
const READ_AT_ONCE = 4;
/** Rows per INSERT: well under SQLite's parameter limit with 15 columns. */
const ROWS_PER_INSERT = 200;

const STALE = `FROM view_transcripts t
  LEFT JOIN view_usage_state u ON u.project_id = t.project_id AND u.conversation_id = t.conversation_id
  WHERE t.project_id = ? AND (u.sha IS NULL OR u.sha <> t.sha OR u.prices <> ?)`;

/** Transcripts whose usage is not read yet (or was read with another price table). */
export async function usagePending(storage: TraceStorage, projectId: number, prices: PriceTable): Promise<number> {
  const [row] = await storage.query<{ n: number }>(`SELECT COUNT(*) AS n ${STALE}`, [projectId, prices.fingerprint]);
  return row?.n ?? 0;
}

interface Stale {
  conversation_id: string;
  sha: string;
  size: number;
  agent: string | null;
}

interface Read {
  usage: SnapshotUsage;
  from: 'transcript' | 'hook_payloads';
}

/** Conversations whose usage is to be read: all of them, a page at a time, or one. */
function staleConversations(storage: TraceStorage, projectId: number, prices: PriceTable, only?: string): Promise<Stale[]> {
  return storage.query<Stale>(
    `SELECT t.conversation_id, t.sha, t.size, s.agent ${STALE.replace(
      'WHERE',
      'LEFT JOIN view_sessions s ON s.project_id = t.project_id AND s.conversation_id = t.conversation_id WHERE',
    )} ${only === undefined ? 'ORDER BY t.conversation_id LIMIT ?' : 'AND t.conversation_id = ?'}`,
    [projectId, prices.fingerprint, only ?? STALE_PAGE],
  );
}

/** Reads every stale conversation's usage (until `stopped` says so); returns how many were read. */
export async function deriveUsage(storage: TraceStorage, projectId: number, prices: PriceTable, stopped = () => false): Promise<number> {
  let done = 0;
  await prices.prepare();
  while (!stopped()) {
    const stale = await staleConversations(storage, projectId, prices);
    if (stale.length === 0) return done;
    for (let at = 0; at < stale.length && !stopped(); at += BATCH) {
      const batch = stale.slice(at, at + BATCH);
      await writeUsages(storage, projectId, prices, batch, await readBatch(storage, projectId, batch));
      done += batch.length;
    }
  }
  return done;
}

/** Reads one conversation's usage now when it is not read yet (a session page that is asked for first). */
export async function deriveConversation(
  storage: TraceStorage,
  projectId: number,
  prices: PriceTable,
  conversationId: string,
): Promise<void> {
  const stale = await staleConversations(storage, projectId, prices, conversationId);
  if (stale.length === 0) return;
  await prices.prepare();
  await writeUsages(storage, projectId, prices, stale, await readBatch(storage, projectId, stale));
}

/** A batch's transcripts, a few read at once (their blobs come from the database or the disk). */
async function readBatch(storage: TraceStorage, projectId: number, batch: readonly Stale[]): Promise<Read[]> {
  const read: Read[] = new Array(batch.length);
  let next = 0;
  const worker = async () => {
    while (next < batch.length) {
      const index = next++;
      read[index] = await readConversation(storage, projectId, batch[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_AT_ONCE, batch.length) }, worker));
  return read;
}

async function readConversation(storage: TraceStorage, projectId: number, conversation: Stale): Promise<Read> {
  const agent = conversation.agent !== null && AGENT_ID.test(conversation.agent) ? conversation.agent : null;
  let usage: SnapshotUsage;
  const source = streamSource(conversation.size, async (start) => (await storage.readBlob(projectId, conversation.sha, start))?.stream);
  const format = agent === null ? await recognizeFormat(source).catch(() => undefined) : await transcriptFormat(agent);
  if (!format) {
    usage = compact(conversation.sha, agent, { usage: 'unknown', reason: 'No built-in agent reads this transcript.' });
  } else {
    try {
      usage = compact(conversation.sha, agent, await readUsage(source, format));
    } catch (error) {
      // A blob gone from under the row (forgotten, retention): the usage stays unknown until a snapshot is pushed again.
      usage = compact(conversation.sha, agent, {
        usage: 'unknown',
        reason: `The transcript could not be read: ${(error as Error).message}`,
      });
    }
  }
  if (usage.usage === 'unknown') {
    const reported = await reportedUsage(storage, projectId, conversation.conversation_id, agent);
    if (reported) return { usage: reported, from: 'hook_payloads' };
  }
  return { usage, from: 'transcript' };
}

/** A batch's rows replace what the view held for those conversations; their state is written last, so a run killed midway reads them again. */
async function writeUsages(
  storage: TraceStorage,
  projectId: number,
  prices: PriceTable,
  batch: readonly Stale[],
  read: readonly Read[],
): Promise<void> {
  const rows = batch.flatMap((conversation, index) => priceRows(projectId, conversation.conversation_id, read[index]!.usage, prices));
  await storage.execute(`DELETE FROM view_usage WHERE project_id = ? AND conversation_id IN (${batch.map(() => '?').join(', ')})`, [
    projectId,
    ...batch.map((conversation) => conversation.conversation_id),
  ]);
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    const chunk = rows.slice(start, start + ROWS_PER_INSERT);
    await storage.execute(
      `INSERT INTO view_usage (project_id, conversation_id, turn, model, day, ts, requests, input, output, cache_write, cache_read,
        reasoning, cache_write_1h, cost_nusd, unpriced) VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
      chunk.flat(),
    );
  }
  await storage.execute(
    `INSERT INTO view_usage_state (project_id, conversation_id, sha, prices, usage, source, reason, refused)
     VALUES ${batch.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}
     ON CONFLICT (project_id, conversation_id) DO UPDATE SET sha = excluded.sha, prices = excluded.prices, usage = excluded.usage,
     source = excluded.source, reason = excluded.reason, refused = excluded.refused`,
    batch.flatMap((conversation, index) => {
      const { usage, from } = read[index]!;
      return [
        projectId,
        conversation.conversation_id,
        conversation.sha,
        prices.fingerprint,
        usage.usage,
        from,
        usage.reason ?? null,
        JSON.stringify(usage.refused),
      ];
    }),
  );
}

/** The usage the conversation's trace rows reported (Cursor's payloads), if any. */
async function reportedUsage(
  storage: TraceStorage,
  projectId: number,
  conversationId: string,
  agent: string | null,
): Promise<SnapshotUsage | undefined> {
  const rows = await storage.query<{ body: string }>(
    `SELECT i.body FROM view_session_traces t JOIN items i ON i.seq = t.seq WHERE t.project_id = ? AND t.conversation_id = ? ORDER BY t.seq`,
    [projectId, conversationId],
  );
  const parsed = rows.flatMap((row) => {
    if (!row.body.includes('"usage"')) return [];
    try {
      return [JSON.parse(row.body) as unknown];
    } catch {
      return [];
    }
  });
  const report = usageFromTraces(parsed);
  return report ? compact('', agent, report) : undefined;
}

/** One row per turn, model and day: its requests' tokens summed, their cost in nano-dollars, how many could not be priced. */
function priceRows(projectId: number, conversationId: string, usage: SnapshotUsage, prices: PriceTable): unknown[][] {
  const rows = new Map<string, unknown[]>();
  for (const request of usage.requests) {
    const model = request[2] >= 0 ? (usage.models[request[2]] ?? '') : '';
    const ts = request[1] === null ? null : new Date(request[1] * 1000).toISOString();
    const day = ts?.slice(0, 10) ?? '';
    const key = `${request[0]}\u0000${model}\u0000${day}`;
    let row = rows.get(key);
    if (!row) rows.set(key, (row = [projectId, conversationId, request[0], model, day, ts, 0, 0, 0, 0, 0, 0, 0, 0, 0]));
    const tokens = tokensOf(request);
    const add = (column: number, value: number) => ((row![column] as number) += value);
    add(6, 1);
    add(7, tokens.input);
    add(8, tokens.output);
    add(9, tokens.cacheWrite);
    add(10, tokens.cacheRead);
    add(11, tokens.reasoning ?? 0);
    add(12, tokens.cacheWrite1h ?? 0);
    const cost = prices.cost({
      ...(ts === null ? {} : { ts }),
      ...(model ? { model } : {}),
      tokens,
      scope: request[9] === 1 ? 'session' : 'request',
    });
    if ('usd' in cost) add(13, Math.round(cost.usd * 1e9));
    else add(14, 1);
  }
  return [...rows.values()];
}

/** deriveUsage per project in the background, after each fold (project-refresher.ts). */
export function usageRefresher(storage: TraceStorage, prices: () => Promise<PriceTable>, log: () => FastifyBaseLogger): ProjectRefresher {
  return new ProjectRefresher(
    async (projectId, stopped) => deriveUsage(storage, projectId, await prices(), stopped),
    'team view usage reading failed',
    log,
  );
}

/**
 * The service's price table: the pinned table with the overrides in
 * `<home>/prices.json` of the home `tracer serve` runs with; loaded on first
 * use and again when that file changes, so an organization's new rates need no
 * restart (and price every transcript again).
 */
export function servicePrices(home: string): () => Promise<PriceTable> {
  let loaded: { stamp: string; table: Promise<PriceTable> } | undefined;
  return async () => {
    const stamp = await stat(join(home, 'prices.json')).then(
      (info) => `${info.size}:${info.mtimeMs}`,
      () => 'none',
    );
    if (loaded?.stamp !== stamp) {
      const { loadPriceTable } = await import('../../cost/prices.js');
      loaded = { stamp, table: loadPriceTable(home) };
      // A refused prices.json is told to whoever asks next, and tried again then.
      loaded.table.catch(() => (loaded = undefined));
    }
    return loaded.table;
  };
}
