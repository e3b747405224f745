import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadPriceTable, type PriceTable } from '../../src/cost/prices.js';
import { cleanup, tempDir } from '../helpers/cli.js';

// How requests are priced: the expected figures are the providers' published
// per-million-token prices times the tokens, computed here.
test.after(cleanup);

let table: PriceTable;
test.before(async () => {
  table = await loadPriceTable(join(tempDir('tracer-prices-home-'), 'home'));
  await table.prepare();
});

const tokens = (input: number, output: number, cacheWrite = 0, cacheRead = 0, cacheWrite1h = 0) => ({
  input,
  output,
  cacheWrite,
  cacheRead,
  ...(cacheWrite1h ? { cacheWrite1h } : {}),
});

function usd(cost: ReturnType<PriceTable['cost']>): number {
  if (!('usd' in cost)) throw new Error(`not priced: ${cost.unknown}`);
  return cost.usd;
}

test('below its first tier a request costs its tokens times each kind’s price; hour-long cache writes at their own price', () => {
  // Claude Sonnet 4.5 (before the long-context tier): $3 input, $15 output, $3.75 / $6 cache writes (5 min / 1 h), $0.30 cache reads.
  const cost = table.cost({
    ts: '2025-10-01T10:00:00Z',
    model: 'claude-sonnet-4-5-20250929',
    tokens: tokens(1000, 200, 5000, 40000, 2000),
    scope: 'request',
  });
  assert.ok(Math.abs(usd(cost) - (1000 * 3 + 200 * 15 + 3000 * 3.75 + 2000 * 6 + 40000 * 0.3) / 1e6) < 1e-12);
});

test('a request over the 200k tier is priced whole at the tier’s prices, as the provider does', () => {
  // Anthropic's long-context prices for Sonnet 4.5 (prompts over 200k tokens): $6 input, $22.50 output.
  const cost = table.cost({ ts: '2025-10-01T10:00:00Z', model: 'claude-sonnet-4-5', tokens: tokens(250_000, 1000), scope: 'request' });
  assert.ok(Math.abs(usd(cost) - (250_000 * 6 + 1000 * 22.5) / 1e6) < 1e-12);
});

test("a session's totals are priced only where no request could have crossed a tier", () => {
  const below = table.cost({ ts: '2025-10-01T10:00:00Z', model: 'claude-sonnet-4-5', tokens: tokens(150_000, 1000), scope: 'session' });
  assert.ok(Math.abs(usd(below) - (150_000 * 3 + 1000 * 15) / 1e6) < 1e-12, 'every request of it was under 200k');
  const above = table.cost({ ts: '2025-10-01T10:00:00Z', model: 'claude-sonnet-4-5', tokens: tokens(900_000, 1000), scope: 'session' });
  assert.equal(above, { unknown: 'session_totals' });
  // A model with one price whatever the size: totals are priced like anything else.
  const flat = table.cost({ ts: '2026-02-23T10:00:00Z', model: 'gpt-5.3-codex', tokens: tokens(900_000, 1000), scope: 'session' });
  assert.ok(Math.abs(usd(flat) - (900_000 * 1.75 + 1000 * 14) / 1e6) < 1e-12);
});

test('a price that depends on the hour is asked of the table for each request', () => {
  // DeepSeek's chat model: $0.27 / $1.10 from 00:30 to 16:30 UTC, half that the rest of the day.
  const day = usd(
    table.cost({ ts: '2025-10-01T10:00:00Z', model: 'deepseek-chat', tokens: tokens(1_000_000, 1_000_000), scope: 'request' }),
  );
  const night = usd(
    table.cost({ ts: '2025-10-01T20:00:00Z', model: 'deepseek-chat', tokens: tokens(1_000_000, 1_000_000), scope: 'request' }),
  );
  assert.ok(Math.abs(day - 1.37) < 1e-9, `day $${day}`);
  assert.ok(Math.abs(night - 0.685) < 1e-9, `night $${night}`);
});

test('an unknown model and a request naming none are cost unknown, never a guess', () => {
  assert.equal(table.cost({ model: 'acme-coder-9', tokens: tokens(10, 10), scope: 'request' }), { unknown: 'model_unknown' });
  assert.equal(table.cost({ tokens: tokens(10, 10), scope: 'request' }), { unknown: 'model_missing' });
  assert.equal(table.cost({ model: '  ', tokens: tokens(10, 10), scope: 'request' }), { unknown: 'model_missing' });
});

test('the version every cost is printed with is the installed table’s', () => {
  assert.match(table.version, /^genai-prices 0\.1\.8$/);
  assert.is(table.fingerprint, table.version);
});

test.run();
