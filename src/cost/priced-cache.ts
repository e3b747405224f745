// A snapshot's priced usage, kept beside its usage: `<project>/cache/cost.jsonl`
// holds, per snapshot, reader and price table, the figures a conversation's
// cost is made of (tokens and dollars per model, turns, refusals), so a run
// that has priced a snapshot before reads a few hundred bytes for it instead of
// every request. A line priced with another table is ignored (and the snapshot
// priced again from cache/usage.jsonl, never from the transcript).
import { join } from 'node:path';
import { PROJECT_STATE_FILES } from '../store/home.js';
import { appendRecords, readRecords } from '../store/jsonl.js';
import type { UsageTokens } from '../core/transcript.js';
import type { ConversationCost } from './conversation-cost.js';
import type { UnpricedReason } from './prices.js';
import { refusedCount } from './refusals.js';
import { USAGE_READ_VERSION } from './usage-cache.js';

export const PRICED_CACHE_FILE = join(PROJECT_STATE_FILES.cache, 'cost.jsonl');

/** What is kept of a priced snapshot: everything but who asked for it. */
export type PricedSnapshot = Omit<ConversationCost, 'conversation_id' | 'snapshot' | 'source'>;

/** Token counts as kept: [input, output, cacheWrite, cacheRead, reasoning, cacheWrite1h]. */
type Tokens = [number, number, number, number, number, number];

/** A priced snapshot as kept on one line: its tokens as arrays, so ten thousand lines parse quickly. */
interface Kept {
  usage: 'known' | 'unknown';
  reason: string | null;
  turns: number;
  requests: number;
  tokens: Tokens;
  usd: number | null;
  known: boolean;
  /** [model, requests, tokens, usd, unpriced, reasons]. */
  models: Array<[string, number, Tokens, number, number, UnpricedReason[]]>;
  refused: Record<string, number>;
  skipped: number;
}

interface Line {
  sha: string;
  agent: string | null;
  v: number;
  prices: string;
  cost: Kept;
}

export class PricedCache {
  private readonly entries = new Map<string, PricedSnapshot>();
  private readonly fresh: Line[] = [];

  private constructor(
    private readonly path: string,
    private readonly fingerprint: string,
  ) {}

  /** The lines priced with `fingerprint`; a missing or damaged file is an empty cache. */
  static async load(projectDir: string, fingerprint: string): Promise<PricedCache> {
    const cache = new PricedCache(join(projectDir, PRICED_CACHE_FILE), fingerprint);
    for await (const line of readRecords<Line>(cache.path)) {
      if (!isLine(line) || line.v !== USAGE_READ_VERSION || line.prices !== fingerprint) continue;
      cache.entries.set(key(line.sha, line.agent), unpack(line.agent, line.cost));
    }
    return cache;
  }

  get(sha: string, agent: string | null): PricedSnapshot | undefined {
    return this.entries.get(key(sha, agent));
  }

  add(sha: string, agent: string | null, cost: PricedSnapshot): void {
    this.entries.set(key(sha, agent), cost);
    this.fresh.push({ sha, agent, v: USAGE_READ_VERSION, prices: this.fingerprint, cost: pack(cost) });
  }

  save(): void {
    if (this.fresh.length === 0) return;
    try {
      appendRecords(this.path, this.fresh.splice(0));
    } catch {
      // Only a cache: a read-only home prices the snapshots again next time.
    }
  }
}

function key(sha: string, agent: string | null): string {
  return `${sha}\u0000${agent ?? ''}`;
}

const packTokens = (tokens: UsageTokens): Tokens => [
  tokens.input,
  tokens.output,
  tokens.cacheWrite,
  tokens.cacheRead,
  tokens.reasoning ?? 0,
  tokens.cacheWrite1h ?? 0,
];
const unpackTokens = ([input, output, cacheWrite, cacheRead, reasoning, cacheWrite1h]: Tokens): UsageTokens => ({
  input,
  output,
  cacheWrite,
  cacheRead,
  reasoning,
  cacheWrite1h,
});

function pack(cost: PricedSnapshot): Kept {
  return {
    usage: cost.usage === 'known' ? 'known' : 'unknown',
    reason: cost.reason,
    turns: cost.turns,
    requests: cost.requests,
    tokens: packTokens(cost.tokens),
    usd: cost.usd,
    known: cost.cost_known,
    models: cost.models.map((model) => [model.model, model.requests, packTokens(model.tokens), model.usd, model.unpriced, model.reasons]),
    refused: cost.refused,
    skipped: cost.skipped,
  };
}

function unpack(agent: string | null, kept: Kept): PricedSnapshot {
  return {
    agent,
    usage: kept.usage,
    reason: kept.reason,
    turns: kept.turns,
    requests: kept.requests,
    tokens: unpackTokens(kept.tokens),
    usd: kept.usd,
    // Lines kept before refusals made a cost partly unknown said known: the refusals they keep decide it again.
    cost_known: kept.known && refusedCount(kept.refused) === 0,
    models: kept.models.map(([model, requests, tokens, usd, unpriced, reasons]) => ({
      model,
      requests,
      tokens: unpackTokens(tokens),
      usd,
      unpriced,
      reasons,
    })),
    refused: kept.refused,
    skipped: kept.skipped,
  };
}

const isTokens = (value: unknown): value is Tokens =>
  Array.isArray(value) && value.length === 6 && value.every((n) => typeof n === 'number');

/** A damaged or foreign line is ignored (its snapshot priced again), never half-read. */
function isLine(value: unknown): value is Line {
  if (typeof value !== 'object' || value === null) return false;
  const line = value as Partial<Line>;
  const cost = line.cost;
  return (
    typeof line.sha === 'string' &&
    (line.agent === null || typeof line.agent === 'string') &&
    typeof line.prices === 'string' &&
    typeof cost === 'object' &&
    cost !== null &&
    (cost.usage === 'known' || cost.usage === 'unknown') &&
    typeof cost.requests === 'number' &&
    typeof cost.turns === 'number' &&
    isTokens(cost.tokens) &&
    (cost.usd === null || typeof cost.usd === 'number') &&
    Array.isArray(cost.models) &&
    cost.models.every(
      (model) =>
        Array.isArray(model) &&
        typeof model[0] === 'string' &&
        typeof model[1] === 'number' &&
        isTokens(model[2]) &&
        typeof model[3] === 'number' &&
        typeof model[4] === 'number' &&
        Array.isArray(model[5]),
    ) &&
    typeof cost.refused === 'object' &&
    cost.refused !== null
  );
}
