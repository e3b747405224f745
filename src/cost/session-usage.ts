// One conversation's tokens and cost turn by turn, for the session page of the
// local viewer: its freshest snapshot's usage (read once, usage-cache.ts), or
// what its agent reported in hook payloads, each request priced. The team view
// answers the same shape from its SQL tables (src/server/team/usage.ts).
import type { UsageTokens } from '../core/transcript.js';
import type { FormatContext } from '../transcript/agents.js';
import { addTokens, usageFromTraces, zeroTotals } from '../transcript/usage.js';
import { snapshotIndex, tokensOf } from './conversation-cost.js';
import { tokenCounts } from './cost-section.js';
import type { SessionUsage } from '../viewer/data-source.js';
import type { PriceTable } from './prices.js';
import type { ConversationTraces } from './trace-summary.js';
import { compact, UsageCache, type SnapshotUsage } from './usage-cache.js';
import { refusedCount } from './refusals.js';

export async function sessionUsage(query: {
  projectDir: string;
  context: FormatContext;
  prices: PriceTable;
  conversationId: string;
  traces: ConversationTraces | undefined;
  /** A cache kept by the caller (the viewer keeps one per project, in memory); else the project's file. */
  cache?: UsageCache;
}): Promise<SessionUsage> {
  const { conversationId, traces, prices } = query;
  const sha = (await snapshotIndex(query.projectDir, [conversationId])).get(conversationId);
  let read: { usage: SnapshotUsage; source: 'transcript' | 'hook_payloads' } | undefined;
  if (sha !== undefined) {
    const cache = query.cache ?? new UsageCache(query.projectDir, query.context);
    const usage = await cache.usageOf(sha, traces?.agent ?? null);
    cache.save();
    if (usage) read = { usage, source: 'transcript' };
  }
  if ((!read || read.usage.usage === 'unknown') && traces && traces.reported.length > 0) {
    const report = usageFromTraces(
      traces.reported.map(([turn, ts, model, input, output, cacheWrite, cacheRead]) => ({
        conversation_id: conversationId,
        turn_id: turn,
        ts,
        ...(model === null ? {} : { model }),
        usage: { input, output, cache_write: cacheWrite, cache_read: cacheRead },
      })),
    );
    if (report) read = { usage: compact('', traces.agent, report), source: 'hook_payloads' };
  }
  await prices.prepare();
  return turnsOf(read, prices, traces);
}

export function turnsOf(
  read: { usage: SnapshotUsage; source: 'transcript' | 'hook_payloads' } | undefined,
  prices: PriceTable,
  traces: ConversationTraces | undefined,
): SessionUsage {
  const empty = {
    prices: prices.version,
    turns: [],
    requests: 0,
    tokens: tokenCounts(zeroTotals()),
    cost_usd: null,
    cost_known: false,
    refused: {},
    written: traces?.written ?? null,
  };
  if (!read) return { ...empty, usage: 'missing', reason: 'No transcript snapshot of this conversation is here.', source: null };
  const { usage } = read;
  if (usage.usage === 'unknown') return { ...empty, usage: 'unknown', reason: usage.reason ?? null, source: read.source };
  const turns = new Map<
    number,
    { ts: string | null; requests: number; models: Set<string>; tokens: UsageTokens; usd: number | null; known: boolean }
  >();
  const total = zeroTotals();
  let usd: number | null = null;
  let known = true;
  for (const request of usage.requests) {
    const model = request[2] >= 0 ? usage.models[request[2]] : undefined;
    const ts = request[1] === null ? null : new Date(request[1] * 1000).toISOString();
    const tokens = tokensOf(request);
    let turn = turns.get(request[0]);
    if (!turn) turns.set(request[0], (turn = { ts, requests: 0, models: new Set(), tokens: zeroTotals(), usd: null, known: true }));
    turn.requests += 1;
    if (model) turn.models.add(model);
    addTokens(turn.tokens, tokens);
    addTokens(total, tokens);
    const cost = prices.cost(
      { ...(ts === null ? {} : { ts }), ...(model ? { model } : {}), tokens, scope: request[9] === 1 ? 'session' : 'request' },
      traces?.last_ts,
    );
    if ('usd' in cost) {
      turn.usd = (turn.usd ?? 0) + cost.usd;
      usd = (usd ?? 0) + cost.usd;
    } else {
      turn.known = false;
      known = false;
    }
  }
  return {
    ...empty,
    usage: 'known',
    reason: null,
    source: read.source,
    turns: [...turns]
      .sort(([a], [b]) => a - b)
      .map(([turn, entry]) => ({
        turn,
        ts: entry.ts,
        requests: entry.requests,
        models: [...entry.models].sort(),
        tokens: tokenCounts(entry.tokens),
        cost_usd: entry.usd,
        cost_known: entry.known,
      })),
    requests: usage.requests.length,
    tokens: tokenCounts(total),
    cost_usd: usd,
    // A refused usage record's tokens are not counted, so neither is its cost.
    cost_known: known && usage.requests.length > 0 && refusedCount(usage.refused) === 0,
    refused: usage.refused,
  };
}
