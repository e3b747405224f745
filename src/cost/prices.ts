// What tokens cost, from a maintained price table: @pydantic/genai-prices,
// pinned to one release (package.json), so that a figure can be reproduced and
// every cost names the table's version. `$TRACER_HOME/prices.json` replaces the
// table's prices for the models it names (price-overrides.ts).
//
// Prices are the provider's list prices for its API, per request: uncached
// input, cache writes (an hour-long write apart where the provider prices it so),
// cache reads and output each at their own rate, at the request's date (a table
// entry may change price on a date, or by the time of day). A model the table
// does not know, a request that names no model, and session totals whose
// requests may have crossed a price tier (or hour) are "cost unknown": never a guess.
//
// The library finds a model among ~1,000 by matching rules (~80 µs a call);
// each model is looked up once, and below its first price tier a request's cost
// is linear in its tokens, so it is the table's price of one token of each kind
// (asked of the library once per model and day) times the tokens. A request at
// or above a tier, or under a time-of-day price, is priced by the library whole.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { UsageTokens } from '../core/transcript.js';
import { overrideFor, readPriceOverrides, type OverridePrices, type PriceOverrides } from './price-overrides.js';

type GenaiPrices = typeof import('@pydantic/genai-prices');
type Provider = import('@pydantic/genai-prices').Provider;
type ModelInfo = import('@pydantic/genai-prices').ModelInfo;

export const PRICE_PACKAGE = '@pydantic/genai-prices';

/** Why a request has no cost. */
export type UnpricedReason = 'model_unknown' | 'model_missing' | 'session_totals';

export const UNPRICED_REASONS: Record<UnpricedReason, string> = {
  model_unknown: 'the price table does not know the model',
  model_missing: 'the transcript names no model',
  session_totals: "the agent writes only a session's totals, and the model's price depends on each request's size or time",
};

export interface PricedRequest {
  ts?: string;
  /** The same time as milliseconds since the epoch (what the usage cache keeps): no string to parse. */
  tsMs?: number;
  model?: string;
  tokens: UsageTokens;
  scope: 'request' | 'session';
}

export type RequestCost = { usd: number } | { unknown: UnpricedReason };

export interface PriceTable {
  /** What every cost is computed with: `genai-prices 0.1.8`, and `prices.json <sha256[:12]>` when one is used. */
  version: string;
  /** Changes whenever a cost could change: the table's version and the overrides' bytes. */
  fingerprint: string;
  /**
   * Loads the table itself (an 800 KB module): call it before `cost`. A run
   * whose figures all come from the cache (cache/cost.jsonl) never loads it.
   */
  prepare(): Promise<void>;
  /** The request's cost; one that names no time is priced at `fallbackTs` (the conversation's last trace), else now. */
  cost(request: PricedRequest, fallbackTs?: string): RequestCost;
}

interface ModelPricing {
  /** The name asked for, lowercase: the only one the provider below matches. */
  name: string;
  provider: Provider;
  model: ModelInfo;
  /** Total input (cache included) from which some price is tiered; Infinity when none is. */
  tierStart: number;
  /** Prices that change within a day: every request is priced whole. */
  byTimeOfDay: boolean;
  /** Dollars per token of each kind, per UTC day (days since the epoch). */
  units: Map<number, Units>;
}

interface Units {
  input: number;
  output: number;
  cacheWrite: number;
  cacheWrite1h: number;
  cacheRead: number;
}

let library: Promise<GenaiPrices> | undefined;

/** The installed table's version, from its package.json (its `exports` hide the file from import). */
export function priceTableVersion(): string {
  const entry = createRequire(import.meta.url).resolve(PRICE_PACKAGE);
  const manifest = JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as { version?: string };
  return `genai-prices ${manifest.version ?? '?'}`;
}

/** The price table with this home's overrides (`<home>/prices.json`); throws `prices_invalid` for a malformed one. */
export async function loadPriceTable(home: string): Promise<PriceTable> {
  const overrides = readPriceOverrides(join(home, 'prices.json'));
  return priceTable(priceTableVersion(), overrides);
}

export function priceTable(tableVersion: string, overrides: PriceOverrides | undefined): PriceTable {
  const version = overrides ? `${tableVersion}, prices.json ${overrides.sha256.slice(0, 12)}` : tableVersion;
  const models = new Map<string, ModelPricing | undefined>();
  let genai: GenaiPrices | undefined;

  const pricingOf = (name: string): ModelPricing | undefined => {
    const key = name.trim().toLowerCase();
    if (models.has(key)) return models.get(key);
    if (!genai) throw new Error('the price table was asked for a price before prepare()');
    const found = lookUp(genai, key, overrideFor(overrides, key));
    models.set(key, found);
    return found;
  };

  return {
    version,
    fingerprint: version,
    async prepare() {
      library ??= import(PRICE_PACKAGE) as Promise<GenaiPrices>;
      genai ??= await library;
    },
    cost(request, fallbackTs) {
      if (request.model === undefined || request.model.trim() === '') return { unknown: 'model_missing' };
      const pricing = pricingOf(request.model);
      if (!pricing) return { unknown: 'model_unknown' };
      const tokens = request.tokens;
      const totalInput = tokens.input + tokens.cacheRead + tokens.cacheWrite;
      const ms = request.tsMs ?? timeOf(request.ts ?? fallbackTs);
      if (totalInput >= pricing.tierStart || pricing.byTimeOfDay) {
        // A session's totals may hold requests on both sides of a tier or an hour: which is not written down.
        if (request.scope === 'session') return { unknown: 'session_totals' };
        return { usd: wholePrice(genai!, pricing, tokens, new Date(ms)) };
      }
      const day = Math.floor(ms / DAY_MS);
      let units = pricing.units.get(day);
      if (!units) {
        // Priced at the day's noon: an entry's prices change on a date, never within the day.
        units = unitPrices(genai!, pricing, new Date(day * DAY_MS + DAY_MS / 2));
        pricing.units.set(day, units);
      }
      const oneHour = Math.min(tokens.cacheWrite1h ?? 0, tokens.cacheWrite);
      return {
        usd:
          tokens.input * units.input +
          tokens.output * units.output +
          (tokens.cacheWrite - oneHour) * units.cacheWrite +
          oneHour * units.cacheWrite1h +
          tokens.cacheRead * units.cacheRead,
      };
    },
  };
}

/** The model's entry: the overrides' when they name it, else the table's; undefined when neither knows it. */
function lookUp(
  genai: GenaiPrices,
  name: string,
  override: { pattern: string; prices: OverridePrices } | undefined,
): ModelPricing | undefined {
  let provider: Provider;
  let model: ModelInfo;
  if (override) {
    model = { id: override.pattern, match: { equals: name }, prices: override.prices };
    provider = { id: 'prices.json', name: 'prices.json', api_pattern: '^$', models: [model] };
  } else {
    const found = genai.calcPrice({ input_tokens: 1, output_tokens: 1 }, name);
    if (!found) return undefined;
    model = found.model;
    // The same entry alone in its provider: later calls skip the matching over every model.
    provider = { ...found.provider, models: [{ ...found.model, match: { equals: name } }] };
  }
  const variants = Array.isArray(model.prices) ? model.prices.map((variant) => variant.prices) : [model.prices];
  const byTimeOfDay = Array.isArray(model.prices) && model.prices.some((variant) => variant.constraint?.type === 'time_of_date');
  return { name, provider, model, tierStart: firstTier(variants), byTimeOfDay, units: new Map() };
}

function firstTier(variants: ReadonlyArray<Record<string, unknown>>): number {
  let start = Infinity;
  for (const prices of variants)
    for (const price of Object.values(prices))
      if (typeof price === 'object' && price !== null && Array.isArray((price as { tiers?: unknown }).tiers))
        for (const tier of (price as { tiers: Array<{ start: number }> }).tiers) start = Math.min(start, tier.start);
  return start;
}

/** The table's price of one token of each kind on that date, below every tier: each asked of the library. */
function unitPrices(genai: GenaiPrices, pricing: ModelPricing, when: Date): Units {
  const price = (usage: Record<string, number>) => priceOf(genai, pricing, usage, when);
  const input = price({ input_tokens: 1 });
  return {
    input,
    output: price({ output_tokens: 1 }),
    cacheWrite: price({ input_tokens: 1, cache_write_tokens: 1 }),
    cacheWrite1h: price({ input_tokens: 1, cache_write_tokens: 1, cache_write_1h_tokens: 1 }),
    cacheRead: price({ input_tokens: 1, cache_read_tokens: 1 }),
  };
}

function wholePrice(genai: GenaiPrices, pricing: ModelPricing, tokens: UsageTokens, when: Date): number {
  return priceOf(genai, pricing, libraryUsage(tokens), when);
}

function priceOf(genai: GenaiPrices, pricing: ModelPricing, usage: Record<string, number>, when: Date): number {
  const result = genai.calcPrice(usage, pricing.name, { provider: pricing.provider, timestamp: when });
  // The entry was found once already: not finding it again would be a fault here, never a price of 0.
  if (!result) throw new Error(`the price table lost its entry for ${pricing.name}`);
  return result.total_price;
}

/** tracer's four kinds in the library's terms: its input_tokens is the whole input, the cache parts inside it. */
export function libraryUsage(tokens: UsageTokens): Record<string, number> {
  return {
    input_tokens: tokens.input + tokens.cacheRead + tokens.cacheWrite,
    cache_read_tokens: tokens.cacheRead,
    cache_write_tokens: tokens.cacheWrite,
    ...(tokens.cacheWrite1h ? { cache_write_1h_tokens: Math.min(tokens.cacheWrite1h, tokens.cacheWrite) } : {}),
    output_tokens: tokens.output,
  };
}

const DAY_MS = 86_400_000;

/** A request's time in ms; one that names none (or names nonsense) is priced now. */
function timeOf(ts: string | undefined): number {
  const parsed = ts === undefined ? NaN : Date.parse(ts);
  return Number.isNaN(parsed) ? Date.now() : parsed;
}
