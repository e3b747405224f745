import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { conversationSizes, seededRandom, writeConversationDataset, writeLargeTraces, writeSyncDataset } from '../../bench/dataset.js';
import { contentId } from '../../src/core/content-id.js';
import { cleanup, tempDir } from '../helpers/cli.js';
import { assertValidLedger } from '../capture/agent-trace-schema.js';

test.after(cleanup);

const rows = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, any>);
const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

test('the sync data set: every row carries its content id, every trace is attributed once, links point at their ledgers', async () => {
  const dir = tempDir('bench-data-');
  const summary = await writeSyncDataset(dir, { traces: 120, ledgers: 6, commitLinks: 6 });
  assert.equal(
    { traces: summary.traces, ledgers: summary.ledgers, commitLinks: summary.commitLinks },
    { traces: 120, ledgers: 6, commitLinks: 6 },
  );
  const traces = rows(join(dir, 'traces.jsonl'));
  const ledgers = rows(join(dir, 'ledgers.jsonl'));
  const links = rows(join(dir, 'commit-links.jsonl'));
  assert.is(traces.length, 120);
  for (const trace of traces) {
    assert.is(trace.id, contentId(trace, 'id'));
    assert.match(trace.ts, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(
      trace.files.length >= 1 && trace.files.every((file: any) => file.line_hashes.every((hash: string) => /^[0-9a-f]{16}$/.test(hash))),
    );
  }
  const average = traces.reduce((sum, trace) => sum + JSON.stringify(trace).length, 0) / traces.length;
  assert.ok(average > 600 && average < 1600, `about 1 KB per trace, got ${average}`);
  for (const ledger of ledgers) {
    assert.is(ledger.sha, contentId(ledger, 'sha'));
    assert.match(ledger.commit, /^[0-9a-f]{40}$/);
    // Shaped as tracer writes ledgers now: a pure Agent Trace record under `record`.
    assertValidLedger(ledger);
  }
  const attributed = ledgers.flatMap((ledger) => ledger.trace_ids as string[]);
  assert.equal([...attributed].sort(), traces.map((trace) => trace.id).sort());
  assert.equal(
    links.map((link) => link.ledger_sha),
    ledgers.map((ledger) => ledger.sha),
  );
  for (const link of links) assert.is(link.id, contentId(link, 'id'));
});

test('the same seed gives the same bytes; another seed does not', async () => {
  const [a, b, c] = [tempDir('bench-a-'), tempDir('bench-b-'), tempDir('bench-c-')];
  await writeSyncDataset(a, { traces: 50, ledgers: 5, commitLinks: 5 });
  await writeSyncDataset(b, { traces: 50, ledgers: 5, commitLinks: 5 });
  await writeSyncDataset(c, { traces: 50, ledgers: 5, commitLinks: 5, seed: 99 });
  for (const file of ['traces.jsonl', 'ledgers.jsonl', 'commit-links.jsonl']) {
    assert.is(digest(join(a, file)), digest(join(b, file)), file);
    assert.is.not(digest(join(a, file)), digest(join(c, file)), file);
  }
  const random = [seededRandom(1)(), seededRandom(1)(), seededRandom(2)()];
  assert.is(random[0], random[1]);
  assert.is.not(random[0], random[2]);
});

test('transcripts: cached under their sha, indexed, one row each, sizes within bounds and near the total', async () => {
  const dir = tempDir('bench-talk-');
  const size = { count: 6, minBytes: 1_000, maxBytes: 300_000, totalBytes: 600_000 };
  const summary = await writeConversationDataset(dir, size);
  const index = JSON.parse(readFileSync(join(dir, 'conversations', '_index.json'), 'utf8')) as Record<string, string>;
  const conversationRows = rows(join(dir, 'conversations.jsonl'));
  assert.is(conversationRows.length, 6);
  for (const row of conversationRows) {
    const bytes = readFileSync(join(dir, 'conversations', row.content_sha256.slice(0, 2), row.content_sha256));
    assert.is(createHash('sha256').update(bytes).digest('hex'), row.content_sha256);
    assert.is(bytes.length, row.size);
    assert.is(index[row.conversation_id], row.content_sha256);
  }
  assert.ok(summary.sizes.every((one) => one >= size.minBytes && one <= size.maxBytes));
  assert.ok(summary.sizes.includes(size.minBytes) && summary.sizes.includes(size.maxBytes), 'both extremes are measured');
  assert.equal(conversationSizes(size, seededRandom(5)), conversationSizes(size, seededRandom(5)));
  assert.is(readdirSync(join(dir, 'conversations')).filter((name) => name.length === 2).length > 0, true);
});

test('a large traces file stops at the asked size, in whole lines', async () => {
  const path = join(tempDir('bench-large-'), 'traces.jsonl');
  const summary = await writeLargeTraces(path, 50_000);
  const text = readFileSync(path, 'utf8');
  assert.is(Buffer.byteLength(text), summary.bytes);
  assert.ok(summary.bytes >= 50_000 && summary.bytes < 52_000);
  assert.ok(text.endsWith('\n'));
  assert.is(text.split('\n').filter(Boolean).length, summary.traces);
});

test.run();
