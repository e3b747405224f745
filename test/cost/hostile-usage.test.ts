import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, runTracer } from '../helpers/cli.js';
import { commitAll, commitLink, machine, seedTraces, traceRow, writeFile, type Machine } from '../capture/ledger-helpers.js';

/**
 * Issue 33, "Must hold": a transcript with malformed or missing usage, an
 * unknown model, a negative or absurd token count is reported as unknown or
 * refused with a code, never counted, never a crash; and prices.json, the
 * organization's own rates, is used when valid and refused with a code when not.
 */
test.after(cleanup);

const SONNET = 'claude-sonnet-4-5-20250929';

function assistant(id: string, model: string, usage: unknown): unknown {
  return {
    type: 'assistant',
    timestamp: '2025-10-01T10:00:00.000Z',
    message: { id, model, role: 'assistant', content: [{ type: 'text', text: `answer ${id}` }], ...(usage === undefined ? {} : { usage }) },
  };
}

const HOSTILE = [
  { type: 'user', timestamp: '2025-10-01T09:59:00.000Z', message: { role: 'user', content: 'write a.ts' } },
  // Counted: 100 input, 50 output, 1000 cache write of which 400 kept an hour, 2000 cache read.
  assistant('msg_ok', SONNET, {
    input_tokens: 100,
    output_tokens: 50,
    cache_creation_input_tokens: 1000,
    cache_read_input_tokens: 2000,
    cache_creation: { ephemeral_5m_input_tokens: 600, ephemeral_1h_input_tokens: 400 },
  }),
  assistant('msg_negative', SONNET, { input_tokens: 10, output_tokens: -5 }),
  assistant('msg_absurd', SONNET, { input_tokens: 1e12, output_tokens: 5 }),
  assistant('msg_string', SONNET, { input_tokens: '12', output_tokens: 5 }),
  assistant('msg_none', SONNET, undefined),
  // Counted, not priced: the table does not know this model.
  assistant('msg_unknown_model', 'acme-coder-9', { input_tokens: 1000, output_tokens: 500 }),
];

function snapshot(m: Machine, conversation: string, bytes: string): void {
  const sha = createHash('sha256').update(bytes).digest('hex');
  mkdirSync(join(m.dir, 'conversations', sha.slice(0, 2)), { recursive: true });
  writeFileSync(join(m.dir, 'conversations', sha.slice(0, 2), sha), bytes);
  const index = join(m.dir, 'conversations', '_index.json');
  let current: Record<string, string> = {};
  try {
    current = JSON.parse(readFileSync(index, 'utf8'));
  } catch {
    current = {};
  }
  writeFileSync(index, JSON.stringify({ ...current, [conversation]: sha }));
}

async function hostileProject(): Promise<Machine> {
  const m = machine();
  writeFile(m.repo, 'README.md', ['# hostile']);
  commitAll(m.repo, 'base');
  const files = {
    'hostile-cc': { agent: 'claude-code', path: 'src/a.ts', lines: ['export const a = 1;', 'export const b = 2;', 'export const c = 3;'] },
    'no-snapshot': { agent: 'codex', path: 'src/b.ts', lines: ['export const d = 4;'] },
    'droid-session': { agent: 'droid', path: 'src/c.ts', lines: ['export const e = 5;'] },
    'garbage-cc': { agent: 'claude-code', path: 'src/d.ts', lines: ['export const f = 6;'] },
  };
  seedTraces(
    m,
    Object.entries(files).map(([conversation, spec]) =>
      traceRow({ agent: spec.agent, conversation, model: '', files: { [spec.path]: spec.lines } }),
    ),
  );
  for (const spec of Object.values(files)) writeFile(m.repo, spec.path, spec.lines);
  commitAll(m.repo, 'four agents');
  assert.is((await commitLink(m)).code, 0);
  snapshot(m, 'hostile-cc', `${HOSTILE.map((line) => JSON.stringify(line)).join('\n')}\n`);
  snapshot(m, 'droid-session', `${JSON.stringify({ type: 'session_start', id: 'droid-session' })}\n`);
  snapshot(m, 'garbage-cc', '\u0000\u0001 not json at all\n{"torn": \n');
  return m;
}

test('malformed, negative, absurd and missing usage is refused with its code and never counted; an unknown model keeps its tokens, its cost unknown', async () => {
  const m = await hostileProject();
  const result = await runTracer(['stats', 'HEAD~1..HEAD', '--cost', '--json'], { cwd: m.repo, home: m.home });
  assert.is(result.code, 0, result.stderr);
  const cost = JSON.parse(result.stdout).cost;
  const byId = Object.fromEntries(cost.by_conversation.map((conversation: any) => [conversation.conversation_id, conversation]));

  const hostile = byId['hostile-cc'];
  assert.is(hostile.usage, 'known');
  assert.equal(hostile.refused, { usage_negative: 1, usage_absurd: 1, usage_malformed: 2 });
  assert.is(hostile.requests, 2, 'only the good request and the unknown model’s are counted');
  assert.equal(hostile.tokens, { input: 1100, output: 550, cache_write: 1000, cache_read: 2000, reasoning: 0, cache_write_1h: 400 });
  // Claude Sonnet 4.5's published prices: $3 input, $15 output, $3.75 five-minute and $6 one-hour cache writes, $0.30 cache reads.
  const priced = (100 * 3 + 50 * 15 + 600 * 3.75 + 400 * 6 + 2000 * 0.3) / 1e6;
  assert.ok(Math.abs(hostile.cost_usd - priced) < 1e-12, `$${hostile.cost_usd}`);
  assert.is(hostile.cost_known, false, 'a model the table does not know leaves the cost incomplete');
  assert.equal(hostile.unpriced, [{ model: 'acme-coder-9', requests: 1, reasons: ['model_unknown'] }]);

  assert.is(byId['no-snapshot'].usage, 'missing');
  assert.is(byId['no-snapshot'].cost_usd, null);
  assert.is(byId['droid-session'].usage, 'unknown');
  assert.match(byId['droid-session'].reason, /\w+/);
  assert.is(byId['droid-session'].cost_usd, null);
  assert.is(byId['garbage-cc'].usage, 'known');
  assert.is(byId['garbage-cc'].requests, 0);

  assert.equal(cost.usage, { known: 2, unknown: 1, missing: 1 });
  assert.is(cost.cost_known, false);
  assert.ok(Math.abs(cost.cost_usd - priced) < 1e-12, 'the total is what could be priced, said to be incomplete');

  const text = await runTracer(['stats', 'HEAD~1..HEAD', '--cost'], { cwd: m.repo, home: m.home });
  assert.is(text.code, 0, text.stderr);
  assert.match(
    text.stdout,
    /cost unknown for 1 whose agent writes no token counts, 1 whose transcript is not here, requests the price table cannot price \(acme-coder-9: the price table does not know the model\)/,
  );
  const show = await runTracer(['show', '--json'], { cwd: m.repo, home: m.home });
  assert.is(show.code, 0, show.stderr);
  assert.is(JSON.parse(show.stdout).cost.cost_known, false);
});

test('--by model: a model the table does not know costs unknown, never $0; each model’s written lines are counted from the traces that name it', async () => {
  const m = machine();
  writeFile(m.repo, 'README.md', ['# models']);
  commitAll(m.repo, 'base');
  const unknownLines = ['export const u = 1;', 'export const v = 2;'];
  const sonnetLines = ['export const s = 1;', 'export const t = 2;', 'export const w = 3;'];
  seedTraces(m, [
    traceRow({ conversation: 'unknown-only', model: 'acme-coder-9', files: { 'src/u.ts': unknownLines } }),
    traceRow({ conversation: 'sonnet-cc', model: SONNET, files: { 'src/s.ts': sonnetLines } }),
  ]);
  writeFile(m.repo, 'src/u.ts', unknownLines);
  writeFile(m.repo, 'src/s.ts', sonnetLines);
  commitAll(m.repo, 'two models');
  assert.is((await commitLink(m)).code, 0);
  const prompt = HOSTILE[0];
  snapshot(
    m,
    'unknown-only',
    `${[prompt, assistant('msg_u', 'acme-coder-9', { input_tokens: 1000, output_tokens: 500 })].map((line) => JSON.stringify(line)).join('\n')}\n`,
  );
  snapshot(
    m,
    'sonnet-cc',
    `${[prompt, assistant('msg_s', SONNET, { input_tokens: 100, output_tokens: 50 })].map((line) => JSON.stringify(line)).join('\n')}\n`,
  );

  const result = await runTracer(['stats', 'HEAD~1..HEAD', '--cost', '--by', 'model', '--json'], { cwd: m.repo, home: m.home });
  assert.is(result.code, 0, result.stderr);
  const cost = JSON.parse(result.stdout).cost;
  const unknownModel = cost.by.find((group: any) => group.key.endsWith('acme-coder-9'));
  assert.ok(unknownModel, JSON.stringify(cost.by));
  assert.equal(
    [unknownModel.requests, unknownModel.cost_usd, unknownModel.cost_known, unknownModel.written, unknownModel.landed],
    [1, null, false, 2, 2],
    'the unknown model: its tokens, its cost unknown, its lines',
  );
  const sonnet = cost.by.find((group: any) => group.key.endsWith(SONNET));
  assert.ok(Math.abs(sonnet.cost_usd - (100 * 3 + 50 * 15) / 1e6) < 1e-12, `$${sonnet.cost_usd}`);
  assert.equal([sonnet.cost_known, sonnet.written, sonnet.landed], [true, 3, 3]);
  assert.is(
    cost.by.reduce((sum: number, group: any) => sum + group.written, 0),
    cost.written,
    'the models’ written lines add up',
  );

  const text = await runTracer(['stats', 'HEAD~1..HEAD', '--cost', '--by', 'model'], { cwd: m.repo, home: m.home });
  assert.is(text.code, 0, text.stderr);
  const costTable = text.stdout.slice(text.stdout.indexOf('Cost of the agents'));
  const row = costTable.split('\n').find((line) => /^\S*acme-coder-9 /.test(line));
  assert.ok(row, text.stdout);
  assert.not.match(row!, /\$0\.0000/);
  assert.match(row!, /cost unknown\s+2\s+2\s/, `written and landed, not "-": ${row}`);
});

test('a conversation some of whose usage records are refused: the refusal and its code are said wherever its cost is, and the cost is not known whole', async () => {
  const m = machine();
  writeFile(m.repo, 'README.md', ['# refused']);
  commitAll(m.repo, 'base');
  const lines = ['export const r = 1;', 'export const s = 2;'];
  seedTraces(m, [traceRow({ conversation: 'partly-refused', model: SONNET, files: { 'src/r.ts': lines } })]);
  writeFile(m.repo, 'src/r.ts', lines);
  commitAll(m.repo, 'refused');
  assert.is((await commitLink(m)).code, 0);
  const transcript = [
    HOSTILE[0],
    assistant('msg_good', SONNET, { input_tokens: 100, output_tokens: 50 }),
    assistant('msg_negative', SONNET, { input_tokens: 10, output_tokens: -5 }),
  ];
  snapshot(m, 'partly-refused', `${transcript.map((line) => JSON.stringify(line)).join('\n')}\n`);
  const priced = (100 * 3 + 50 * 15) / 1e6;
  const said = /1 usage record refused and not counted \(usage_negative 1\)/;

  const stats = JSON.parse((await runTracer(['stats', 'HEAD~1..HEAD', '--cost', '--json'], { cwd: m.repo, home: m.home })).stdout).cost;
  assert.ok(Math.abs(stats.cost_usd - priced) < 1e-12, 'the good request is priced; the refused one is not counted');
  assert.equal([stats.cost_known, stats.refused], [false, { usage_negative: 1 }]);
  assert.equal([stats.by_conversation[0].cost_known, stats.by_conversation[0].refused], [false, { usage_negative: 1 }]);
  for (const format of [[], ['--markdown']]) {
    const text = await runTracer(['stats', 'HEAD~1..HEAD', '--cost', ...format], { cwd: m.repo, home: m.home });
    assert.is(text.code, 0, text.stderr);
    assert.match(text.stdout, said, text.stdout);
    assert.match(text.stdout, /cost unknown for part/);
  }

  const show = JSON.parse((await runTracer(['show', '--json'], { cwd: m.repo, home: m.home })).stdout);
  assert.equal([show.cost.cost_known, show.cost.refused], [false, { usage_negative: 1 }]);
  const usage = show.conversations.find((conversation: any) => conversation.usage).usage;
  assert.equal([usage.cost_known, usage.refused], [false, { usage_negative: 1 }]);
  const text = await runTracer(['show'], { cwd: m.repo, home: m.home });
  assert.is(text.code, 0, text.stderr);
  assert.match(text.stdout, said, text.stdout);
  assert.match(text.stdout, /Cost of the conversations: \$\d+\.\d+ \+ cost unknown for part/);
});

test("prices.json: an organization's rates price the models it names; a malformed one is refused with prices_invalid", async () => {
  const m = await hostileProject();
  mkdirSync(m.home, { recursive: true });
  writeFileSync(
    join(m.home, 'prices.json'),
    JSON.stringify({
      note: 'negotiated',
      models: {
        'acme-coder-*': { input_mtok: 1, output_mtok: 2 },
        [SONNET]: { input_mtok: 2, output_mtok: 10, cache_write_mtok: 2.5, cache_write_1h_mtok: 4, cache_read_mtok: 0.2 },
      },
    }),
  );
  const result = await runTracer(['stats', 'HEAD~1..HEAD', '--cost', '--json'], { cwd: m.repo, home: m.home });
  assert.is(result.code, 0, result.stderr);
  const cost = JSON.parse(result.stdout).cost;
  assert.match(cost.prices, /^genai-prices 0\.1\.8, prices\.json [0-9a-f]{12}$/);
  const hostile = cost.by_conversation.find((conversation: any) => conversation.conversation_id === 'hostile-cc');
  const expected = (100 * 2 + 50 * 10 + 600 * 2.5 + 400 * 4 + 2000 * 0.2) / 1e6 + (1000 * 1 + 500 * 2) / 1e6;
  assert.ok(Math.abs(hostile.cost_usd - expected) < 1e-12, `$${hostile.cost_usd} is $${expected}`);
  assert.is(hostile.cost_known, false, 'every request is priced, but the refused records’ cost is unknown');
  assert.equal(hostile.unpriced, []);

  for (const [bad, why] of [
    ['{"models": {"m": {"input_mtok": 1}}}', /no "output_mtok"/],
    ['{"models": {"m": {"input_mtok": -1, "output_mtok": 1}}}', /dollars per million tokens/],
    ['{"models": {"m": {"input_mtok": 1, "output_mtok": 1, "bogus_mtok": 1}}}', /unknown price "bogus_mtok"/],
    ['not json', /not JSON/],
    ['{"rates": {}}', /unknown member "rates"/],
  ] as const) {
    writeFileSync(join(m.home, 'prices.json'), bad);
    const refused = await runTracer(['stats', 'HEAD~1..HEAD', '--cost'], { cwd: m.repo, home: m.home });
    assert.is(refused.code, 3, refused.stderr);
    assert.match(refused.stderr, /prices_invalid/);
    assert.match(refused.stderr, why);
    assert.is(refused.stdout, '', 'no half figures');
  }
});

test.run();
