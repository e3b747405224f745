// `$TRACER_HOME/prices.json`: an organization's own token prices (negotiated
// rates) for the models it names, used instead of the price table's. Prices are
// written as the table writes them (genai-prices' keys, US dollars per million
// tokens, a number or `{base, tiers: [{start, price}]}`), and are priced by the
// same library code, so an override changes the rates and nothing else.
import { readFileSync } from 'node:fs';
import { sha256Hex } from '../core/content-id.js';
import { ExitCode, TracerError } from '../core/errors.js';
import { errnoCode } from '../files/index.js';

/** The price keys an override may give; input and output are required. */
export const OVERRIDE_KEYS = ['input_mtok', 'output_mtok', 'cache_write_mtok', 'cache_read_mtok', 'cache_write_1h_mtok'] as const;
type OverrideKey = (typeof OVERRIDE_KEYS)[number];

export type TierPrice = { base: number; tiers: Array<{ start: number; price: number }> };
export type OverridePrices = Partial<Record<OverrideKey, number | TierPrice>>;

export interface PriceOverrides {
  /** sha256 of the file's bytes: a figure names the prices it was computed with. */
  sha256: string;
  note: string | null;
  /** Model pattern (lowercase, without a provider prefix; `*` at the end matches any rest) → prices. */
  models: Map<string, OverridePrices>;
}

/** The overrides in `path`; undefined when there is no such file. Anything malformed is refused, never half-used. */
export function readPriceOverrides(path: string): PriceOverrides | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw invalid(path, `it cannot be read (${errnoCode(error) ?? String(error)})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid(path, 'it is not JSON');
  }
  if (!isObject(value)) throw invalid(path, 'it must be an object with a "models" member');
  for (const key of Object.keys(value))
    if (key !== 'models' && key !== 'note') throw invalid(path, `it has an unknown member "${key}" (only "models" and "note")`);
  if (value.note !== undefined && typeof value.note !== 'string') throw invalid(path, '"note" must be a string');
  if (!isObject(value.models)) throw invalid(path, '"models" must be an object of model name → prices');
  const models = new Map<string, OverridePrices>();
  for (const [name, prices] of Object.entries(value.models)) {
    const pattern = modelKey(name);
    if (pattern === '' || pattern === '*' || pattern.slice(0, -1).includes('*'))
      throw invalid(path, `"${name}" is not a model name (a "*" may end it, to match any name that starts with the rest)`);
    models.set(pattern, checkPrices(path, name, prices));
  }
  return { sha256: sha256Hex(text), note: typeof value.note === 'string' ? value.note : null, models };
}

/** The override for a model: the exact name, else the longest pattern ending in `*` that it starts with. */
export function overrideFor(overrides: PriceOverrides | undefined, model: string): { pattern: string; prices: OverridePrices } | undefined {
  if (!overrides) return undefined;
  const name = modelKey(model);
  const exact = overrides.models.get(name);
  if (exact) return { pattern: name, prices: exact };
  let best: string | undefined;
  for (const pattern of overrides.models.keys())
    if (pattern.endsWith('*') && name.startsWith(pattern.slice(0, -1)) && (!best || pattern.length > best.length)) best = pattern;
  return best === undefined ? undefined : { pattern: best, prices: overrides.models.get(best)! };
}

/** How names are compared: lowercase, without the `provider/` prefix Agent Trace ledgers add. */
export function modelKey(model: string): string {
  const name = model.trim().toLowerCase();
  const slash = name.lastIndexOf('/');
  return slash === -1 ? name : name.slice(slash + 1);
}

function checkPrices(path: string, name: string, prices: unknown): OverridePrices {
  if (!isObject(prices)) throw invalid(path, `the prices of "${name}" must be an object such as {"input_mtok": 3, "output_mtok": 15}`);
  const out: OverridePrices = {};
  for (const [key, price] of Object.entries(prices)) {
    if (!(OVERRIDE_KEYS as readonly string[]).includes(key))
      throw invalid(path, `"${name}" has an unknown price "${key}" (known: ${OVERRIDE_KEYS.join(', ')})`);
    out[key as OverrideKey] = checkPrice(path, `${name}.${key}`, price);
  }
  for (const key of ['input_mtok', 'output_mtok'] as const)
    if (out[key] === undefined) throw invalid(path, `"${name}" has no "${key}" (dollars per million tokens)`);
  return out;
}

function checkPrice(path: string, where: string, price: unknown): number | TierPrice {
  if (isPrice(price)) return price;
  if (isObject(price) && isPrice(price.base) && Array.isArray(price.tiers) && price.tiers.length > 0) {
    const tiers = price.tiers.map((tier) => {
      if (!isObject(tier) || !isPrice(tier.price) || typeof tier.start !== 'number' || !Number.isInteger(tier.start) || tier.start <= 0)
        throw invalid(path, `${where} has a tier that is not {"start": <tokens>, "price": <dollars>}`);
      return { start: tier.start, price: tier.price };
    });
    if (tiers.some((tier, index) => index > 0 && tier.start <= tiers[index - 1]!.start))
      throw invalid(path, `the tiers of ${where} must start at growing token counts`);
    return { base: price.base, tiers };
  }
  throw invalid(path, `${where} must be dollars per million tokens (a number from 0 up) or {"base", "tiers"}`);
}

function isPrice(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value < 1e6;
}

function invalid(path: string, why: string): TracerError {
  return new TracerError(
    'prices_invalid',
    `${path} is not a price list tracer can use: ${why}. Fix it (docs/attribution.md), or move it away.`,
    {
      exitCode: ExitCode.localState,
    },
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
