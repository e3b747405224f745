import { appendFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { traceSummary } from '../../src/cost/trace-summary.js';
import { cleanup, runTracer } from '../helpers/cli.js';
import { commitAll, commitLink, machine, seedTraces, traceRow, writeFile, type Machine } from '../capture/ledger-helpers.js';

// The caches behind the cost figures (cache/: numstat.jsonl, trace-summary.json,
// usage.jsonl, cost.jsonl, outcomes.json) are only for speed: the figures are
// the same with them, without them, and with a damaged one; reset --data removes them.
test.after(cleanup);

async function history(): Promise<Machine> {
  const m = machine();
  writeFile(m.repo, 'README.md', ['# caches']);
  commitAll(m.repo, 'base');
  for (const [n, agent] of ['claude-code', 'codex', 'claude-code'].entries()) {
    const lines = [`export const v${n} = ${n};`, `export const w${n} = ${n + 1};`];
    seedTraces(m, [traceRow({ agent, conversation: `conv-${n}`, files: { [`src/f${n}.ts`]: lines } })]);
    writeFile(m.repo, `src/f${n}.ts`, lines);
    commitAll(m.repo, `commit ${n}`);
    assert.is((await commitLink(m)).code, 0);
  }
  writeFile(m.repo, 'src/f0.ts', ['export const v0 = 0;', 'export const by_hand = 1;']);
  commitAll(m.repo, 'a person');
  assert.is((await commitLink(m)).code, 0);
  return m;
}

const stats = async (m: Machine) => {
  const result = await runTracer(['stats', '--cost', '--json'], { cwd: m.repo, home: m.home });
  assert.is(result.code, 0, result.stderr);
  return JSON.parse(result.stdout);
};

test('the figures are the same from the caches, without them, and with damaged ones', async () => {
  const m = await history();
  const first = await stats(m);
  assert.is(first.lines.ai, 6);
  assert.is(first.cost.rework, 1, "a person replaced one of conv-0's lines");
  for (const file of ['numstat.jsonl', 'trace-summary.json', 'outcomes.json']) assert.ok(existsSync(join(m.dir, 'cache', file)), file);
  assert.equal(await stats(m), first, 'from the caches');
  rmSync(join(m.dir, 'cache'), { recursive: true });
  assert.equal(await stats(m), first, 'without them');
  writeFileSync(join(m.dir, 'cache', 'numstat.jsonl'), '{"c": 42}\nnot json\n');
  writeFileSync(join(m.dir, 'cache', 'trace-summary.json'), '{"v": 1, "offset": "x"}');
  writeFileSync(join(m.dir, 'cache', 'outcomes.json'), '[');
  assert.equal(await stats(m), first, 'with damaged ones');
});

test("the traces' summary reads only what was appended, and reads a replaced traces.jsonl again", async () => {
  const m = await history();
  const before = await traceSummary(m.dir);
  assert.is(before.get('conv-1')!.written, 2);
  appendFileSync(
    join(m.dir, 'traces.jsonl'),
    `${JSON.stringify(traceRow({ agent: 'codex', conversation: 'conv-1', files: { 'src/g.ts': ['a', 'b', 'c'] } }))}\n`,
  );
  assert.is((await traceSummary(m.dir)).get('conv-1')!.written, 5);
  // A torn last line (a hook still writing) is left for the next read.
  appendFileSync(join(m.dir, 'traces.jsonl'), '{"conversation_id": "conv-9", "ts": "2025-');
  assert.is((await traceSummary(m.dir)).get('conv-9'), undefined);
  // Replaced by a shorter file (a reset, a rewrite): read again from the start.
  const rows = readFileSync(join(m.dir, 'traces.jsonl'), 'utf8').split('\n').slice(0, 1).join('\n');
  writeFileSync(join(m.dir, 'traces.jsonl'), `${rows}\n`);
  const after = await traceSummary(m.dir);
  assert.equal([...after.keys()], ['conv-0']);
});

test('reset --data removes the caches with the data they come from', async () => {
  const m = await history();
  await stats(m);
  const reset = await runTracer(['reset', '--data', '--yes'], { cwd: m.repo, home: m.home });
  assert.is(reset.code, 0, reset.stderr);
  assert.match(reset.stdout, /removed .*cache/);
  assert.not.ok(existsSync(join(m.dir, 'cache')));
});

test.run();
