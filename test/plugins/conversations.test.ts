import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TracerWarning } from '../../src/core/errors.js';
import conversations from '../../src/plugins/conversations.js';
import { storeOf } from '../../src/engine/family-store.js';
import { cleanup } from '../helpers/cli.js';
import { appendRows } from '../helpers/sync-fixtures.js';
import { kernelWith } from './harness.js';

test.after(cleanup);

function place(dir: string, content: string): string {
  const sha = createHash('sha256').update(content).digest('hex');
  mkdirSync(join(dir, 'conversations', sha.slice(0, 2)), { recursive: true });
  writeFileSync(join(dir, 'conversations', sha.slice(0, 2), sha), content);
  return sha;
}

async function collect(iterable: AsyncIterable<Record<string, unknown>>) {
  const out: Record<string, unknown>[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

test('rows come from conversations.jsonl; an _index.json entry without a row is read from its file', async () => {
  const { kernel, project } = await kernelWith(conversations);
  const store = storeOf(kernel.family('conversations')!, project.dir);
  const withRow = place(project.dir, 'first transcript');
  const byHand = place(project.dir, 'placed by hand');
  const when = new Date('2024-03-04T05:06:07.000Z');
  utimesSync(join(project.dir, 'conversations', byHand.slice(0, 2), byHand), when, when);
  appendRows(join(project.dir, 'conversations.jsonl'), [
    { conversation_id: 'c1', content_sha256: withRow, size: 16, ts: '2024-05-01T00:00:00.000Z' },
    { conversation_id: 'c1', content_sha256: withRow, size: 16, ts: '2024-05-01T00:00:00.000Z' },
  ]);
  writeFileSync(join(project.dir, 'conversations', '_index.json'), JSON.stringify({ c1: withRow, c2: byHand, c3: 'f'.repeat(64) }));
  const warnings: TracerWarning[] = [];
  const records = await collect(store.records((warning) => warnings.push(warning)));
  assert.equal(records, [
    { conversation_id: 'c1', content_sha256: withRow, size: 16, ts: '2024-05-01T00:00:00.000Z' },
    { conversation_id: 'c2', content_sha256: byHand, size: 14, ts: when.toISOString() },
  ]);
  assert.equal(
    warnings.map((warning) => warning.code),
    ['blob_cache_missing'],
  );
  assert.is(store.keyOf(records[0]!), `c1:${withRow}`);
});

test('append keeps the freshest snapshot per conversation in _index.json and never stores inline bytes in rows', async () => {
  const { kernel, project } = await kernelWith(conversations);
  const store = storeOf(kernel.family('conversations')!, project.dir);
  const older = place(project.dir, 'older');
  const newer = place(project.dir, 'newer');
  await store.append([
    { conversation_id: 'c', content_sha256: newer, size: 5, ts: '2024-06-01T00:00:00.000Z', content_base64: 'bmV3ZXI=' },
  ]);
  await store.append([{ conversation_id: 'c', content_sha256: older, size: 5, ts: '2024-05-01T00:00:00.000Z' }]);
  const index = JSON.parse(readFileSync(join(project.dir, 'conversations', '_index.json'), 'utf8'));
  assert.equal(index, { c: newer });
  const rows = readFileSync(join(project.dir, 'conversations.jsonl'), 'utf8');
  assert.not.match(rows, 'content_base64');
  assert.is(rows.trim().split('\n').length, 2);
});

test('conversations follow traces and list their keys as conversation_keys', async () => {
  const { kernel } = await kernelWith(conversations);
  assert.is(kernel.family('conversations')!.follows, 'traces');
  assert.is(kernel.family('conversations')!.manifestKey, 'conversation_keys');
});

test.run();
