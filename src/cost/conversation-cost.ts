// The tokens and cost of conversations: each conversation's freshest snapshot
// (`conversations/_index.json`, else the latest row of conversations.jsonl) is
// read through its agent's reader, once (usage-cache.ts), and every request is
// priced (prices.ts). An agent that reports usage in its hook payloads instead
// (Cursor) is read from its trace rows. A conversation with no snapshot and no
// reported usage is `missing`; one whose agent writes no usage is `unknown`:
// neither is ever counted as zero.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SHA256_HEX } from '../core/content-id.js';
import type { UsageTokens } from '../core/transcript.js';
import { readRecords } from '../store/jsonl.js';
import type { FormatContext } from '../transcript/agents.js';
import { addTokens, usageFromTraces, zeroTotals } from '../transcript/usage.js';
import type { PricedRequest, PriceTable, UnpricedReason } from './prices.js';
import type { ConversationTraces } from './trace-summary.js';
import { PricedCache } from './priced-cache.js';
import { refusedCount } from './refusals.js';
import { readInWorkers, WORKERS_FROM } from './usage-workers.js';
import { compact, UsageCache, type CompactRequest, type SnapshotUsage } from './usage-cache.js';

export interface ModelUsage {
  /** As the agent names it; '' when the transcript names none. */
  model: string;
  requests: number;
  tokens: UsageTokens;
  /** Dollars of the requests that could be priced. */
  usd: number;
  /** Requests that could not be priced, and why: their tokens are counted, their cost is unknown. */
  unpriced: number;
  reasons: UnpricedReason[];
}

export interface ConversationCost {
  conversation_id: string;
  agent: string | null;
  /** The snapshot read (content_sha256); null when usage came from the hook payloads or there is none. */
  snapshot: string | null;
  /** `missing`: no transcript snapshot is here and no payload reported usage. */
  usage: 'known' | 'unknown' | 'missing';
  reason: string | null;
  source: 'transcript' | 'hook_payloads' | null;
  turns: number;
  requests: number;
  tokens: UsageTokens;
  /** Dollars of the priced requests; null when the usage is not known or no request could be priced. */
  usd: number | null;
  /** Every request priced. */
  cost_known: boolean;
  models: ModelUsage[];
  /** Usage the transcript holds that was refused (code → count): never counted. */
  refused: Record<string, number>;
  skipped: number;
}

/** Where each conversation's freshest snapshot is. */
export async function snapshotIndex(projectDir: string, ids: Iterable<string>): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  let index: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(await readFile(join(projectDir, 'conversations', '_index.json'), 'utf8')) as unknown;
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) index = parsed as Record<string, unknown>;
  } catch {
    // No index (or a damaged one): the rows say where the bytes are.
  }
  const wanted = new Set<string>();
  for (const id of ids) {
    const sha = Object.hasOwn(index, id) ? index[id] : undefined;
    if (typeof sha === 'string' && SHA256_HEX.test(sha)) found.set(id, sha);
    else wanted.add(id);
  }
  if (wanted.size === 0) return found;
  const latest = new Map<string, { ts: string; sha: string }>();
  for await (const row of readRecords<Record<string, unknown>>(join(projectDir, 'conversations.jsonl'))) {
    if (typeof row !== 'object' || row === null) continue;
    const id = row.conversation_id;
    const sha = row.content_sha256;
    if (typeof id !== 'string' || !wanted.has(id) || typeof sha !== 'string' || !SHA256_HEX.test(sha)) continue;
    const ts = typeof row.ts === 'string' ? row.ts : '';
    const known = latest.get(id);
    if (!known || ts >= known.ts) latest.set(id, { ts, sha });
  }
  for (const [id, { sha }] of latest) found.set(id, sha);
  return found;
}

export interface CostQuery {
  projectDir: string;
  context: FormatContext;
  prices: PriceTable;
  /** The conversations, with what their traces say (agent, reported usage) where they have any. */
  conversations: Map<string, ConversationTraces | undefined>;
  /** Told how many transcripts must be read (not in the cache) before reading them. */
  onRead?: (count: number) => void;
}

export async function conversationCosts(query: CostQuery): Promise<Map<string, ConversationCost>> {
  const [snapshots, priced] = await Promise.all([
    snapshotIndex(query.projectDir, query.conversations.keys()),
    PricedCache.load(query.projectDir, query.prices.fingerprint),
  ]);
  const costs = new Map<string, ConversationCost>();
  const unpriced: Array<[string, string, string | null]> = [];
  for (const [id, traces] of query.conversations) {
    const sha = snapshots.get(id);
    const agent = traces?.agent ?? null;
    const known = sha === undefined ? undefined : priced.get(sha, agent);
    if (known && sha !== undefined)
      costs.set(id, Object.assign({ conversation_id: id, snapshot: sha, source: 'transcript' as const }, known));
    else if (sha !== undefined) unpriced.push([id, sha, agent]);
  }
  // The usage of what is not priced yet: from cache/usage.jsonl, else read from the transcript once.
  const usages = new Map<string, SnapshotUsage | undefined>();
  if (unpriced.length > 0) {
    const cache = new UsageCache(query.projectDir, query.context);
    await cache.load();
    const toRead = unpriced.filter(([id, sha, agent]) => {
      const cached = cache.cached(sha, agent);
      if (cached) usages.set(id, cached);
      return !cached;
    });
    if (toRead.length > 0) query.onRead?.(toRead.length);
    try {
      if (toRead.length >= WORKERS_FROM) {
        // Many first reads: parsed on every core (usage-workers.ts).
        const read = await readInWorkers(
          query.projectDir,
          query.context,
          toRead.map(([, sha, agent]) => ({ sha, agent })),
        );
        toRead.forEach(([id], index) => {
          const entry = read[index];
          if (entry) cache.put(entry);
          if (entry !== undefined) usages.set(id, entry ?? undefined);
        });
      }
      // A few at a time in this thread: reading is mostly parsing, and a few keep the disk busy meanwhile.
      const left = toRead.filter(([id]) => !usages.has(id));
      let next = 0;
      const worker = async () => {
        while (next < left.length) {
          const [id, sha, agent] = left[next++]!;
          usages.set(id, await cache.usageOf(sha, agent));
        }
      };
      await Promise.all([worker(), worker(), worker()]);
    } finally {
      cache.save();
    }
  }
  // The table itself is loaded only when something is priced now.
  if (costs.size < query.conversations.size) await query.prices.prepare();
  for (const [id, traces] of query.conversations) {
    if (costs.has(id)) continue;
    let read: { usage: SnapshotUsage; source: 'transcript' | 'hook_payloads' } | undefined;
    const usage = usages.get(id);
    if (usage) read = { usage, source: 'transcript' };
    // An agent whose transcript holds no usage may have reported it in its payloads (Cursor).
    if ((!read || read.usage.usage === 'unknown') && traces && traces.reported.length > 0) {
      const report = usageFromTraces(
        traces.reported.map(([turn, ts, model, input, output, cacheWrite, cacheRead]) => ({
          conversation_id: id,
          turn_id: turn,
          ts,
          ...(model === null ? {} : { model }),
          usage: { input, output, cache_write: cacheWrite, cache_read: cacheRead },
        })),
      );
      if (report) read = { usage: compact('', traces.agent, report), source: 'hook_payloads' };
    }
    const cost = priceConversation(id, traces, read, query.prices);
    costs.set(id, cost);
    // Kept when it depends on the snapshot and the table alone: not on a trace's time for a request that names
    // none, nor when unknown (usage the payloads report may come later for the same snapshot).
    if (read?.source === 'transcript' && read.usage.usage === 'known' && read.usage.requests.every((request) => request[1] !== null)) {
      const { conversation_id: _id, snapshot: _sha, source: _source, ...kept } = cost;
      priced.add(read.usage.sha, read.usage.agent, kept);
    }
  }
  priced.save();
  return costs;
}

function priceConversation(
  id: string,
  traces: ConversationTraces | undefined,
  read: { usage: SnapshotUsage; source: 'transcript' | 'hook_payloads' } | undefined,
  prices: PriceTable,
): ConversationCost {
  const agent = read?.usage.agent ?? traces?.agent ?? null;
  const base = {
    conversation_id: id,
    agent,
    snapshot: read && read.source === 'transcript' ? read.usage.sha : null,
    turns: 0,
    requests: 0,
    tokens: zeroTotals(),
    models: [] as ModelUsage[],
    refused: {} as Record<string, number>,
    skipped: 0,
  };
  if (!read)
    return {
      ...base,
      usage: 'missing',
      reason: 'No transcript snapshot of this conversation is here.',
      source: null,
      usd: null,
      cost_known: false,
    };
  const { usage } = read;
  if (usage.usage === 'unknown')
    return { ...base, usage: 'unknown', reason: usage.reason ?? null, source: read.source, usd: null, cost_known: false };
  const models = new Map<string, ModelUsage>();
  const fallbackTs = traces?.last_ts;
  const priced: PricedRequest = { tokens: zeroTotals(), scope: 'request' };
  let turns = 0;
  for (const request of usage.requests) {
    const model = request[2] >= 0 ? (usage.models[request[2]] ?? '') : '';
    let entry = models.get(model);
    if (!entry) {
      entry = { model, requests: 0, tokens: zeroTotals(), usd: 0, unpriced: 0, reasons: [] };
      models.set(model, entry);
    }
    const tokens = tokensOf(request);
    entry.requests += 1;
    addTokens(entry.tokens, tokens);
    turns = Math.max(turns, request[0]);
    // One object reused for every request: a conversation may hold thousands.
    priced.tokens = tokens;
    priced.scope = request[9] === 1 ? 'session' : 'request';
    priced.model = model === '' ? undefined : model;
    priced.tsMs = request[1] === null ? undefined : request[1] * 1000;
    const cost = prices.cost(priced, fallbackTs);
    if ('usd' in cost) entry.usd += cost.usd;
    else {
      entry.unpriced += 1;
      if (!entry.reasons.includes(cost.unknown)) entry.reasons.push(cost.unknown);
    }
  }
  const tokens = zeroTotals();
  let usd = 0;
  let unpriced = 0;
  for (const entry of models.values()) {
    addTokens(tokens, entry.tokens);
    usd += entry.usd;
    unpriced += entry.unpriced;
  }
  return {
    ...base,
    usage: 'known',
    reason: null,
    source: read.source,
    turns,
    requests: usage.requests.length,
    tokens,
    // Nothing priced is an unknown cost, never $0 (an empty transcript is $0: nothing was asked).
    usd: unpriced > 0 && unpriced === usage.requests.length ? null : usd,
    // A refused usage record is a request whose tokens are not counted: its cost is unknown too.
    cost_known: unpriced === 0 && refusedCount(usage.refused) === 0,
    models: [...models.values()].sort((a, b) => b.usd - a.usd || (a.model < b.model ? -1 : 1)),
    refused: usage.refused,
    skipped: usage.skipped,
  };
}

export function tokensOf(request: CompactRequest): UsageTokens {
  return {
    input: request[3],
    output: request[4],
    cacheWrite: request[5],
    cacheRead: request[6],
    ...(request[7] > 0 ? { reasoning: request[7] } : {}),
    ...(request[8] > 0 ? { cacheWrite1h: request[8] } : {}),
  };
}
