// A snapshot's priced usage, kept beside its usage: `<project>/cache/cost.jsonl`
// holds, per snapshot, reader and price table, the figures a conversation's
// cost is made of (tokens and dollars per model, turns, refusals), so a run
// that has priced a snapshot before reads a few hundred bytes for it instead of
// every request. A line priced with another table is ignored (and the snapshot
// priced again from cache/usage.jsonl, never from the transcript).
import { join } from 'node:path';
import { appendRecords, readRecords } from '../store/jsonl.js';
import type { ConversationCost } from './conversation-cost.js';
import { USAGE_READ_VERSION } from './usage-cache.js';

export const PRICED_CACHE_FILE = join('cache', 'cost.jsonl');

/** What is kept of a priced snapshot: everything but who asked for it. */
export type PricedSnapshot = Omit<ConversationCost, 'conversation_id' | 'snapshot' | 'source'>;

interface Line {
  sha: string;
  agent: string | null;
  v: number;
  prices: string;
  cost: PricedSnapshot;
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
      cache.entries.set(key(line.sha, line.agent), line.cost);
    }
    return cache;
  }

  get(sha: string, agent: string | null): PricedSnapshot | undefined {
    return this.entries.get(key(sha, agent));
  }

  add(sha: string, agent: string | null, cost: PricedSnapshot): void {
    this.entries.set(key(sha, agent), cost);
    this.fresh.push({ sha, agent, v: USAGE_READ_VERSION, prices: this.fingerprint, cost });
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

function isLine(value: unknown): value is Line {
  if (typeof value !== 'object' || value === null) return false;
  const line = value as Partial<Line>;
  const cost = line.cost as Partial<PricedSnapshot> | undefined;
  return (
    typeof line.sha === 'string' &&
    (line.agent === null || typeof line.agent === 'string') &&
    typeof line.prices === 'string' &&
    typeof cost === 'object' &&
    cost !== null &&
    (cost.usage === 'known' || cost.usage === 'unknown') &&
    Array.isArray(cost.models) &&
    typeof cost.tokens === 'object' &&
    cost.tokens !== null &&
    typeof cost.requests === 'number'
  );
}
