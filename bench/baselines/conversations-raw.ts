// Baseline of workload 4, both legs over one kept-alive connection:
// push: per transcript of 256 KiB or more, HEAD the blob and POST the bytes when
// missing; rows go to /sync/conversations, inline (base64) below 256 KiB,
// batched by 500 items and 8 MiB as tracer batches them.
// pull: page through /sync/conversations, decode inline bytes or GET the blob,
// into the same cache layout.
// Usage: conversations-raw.ts push|pull <remote-url> <token> <project-dir>
import { createReadStream, createWriteStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { download, expectStatus, rawTarget, report, send } from './raw-http.js';

const [leg, remoteUrl, token, dir] = process.argv.slice(2) as ['push' | 'pull', string, string, string];
const target = rawTarget(remoteUrl, token);
const INLINE_BELOW = 256 * 1024;
const MAX_BATCH_BYTES = 8 * 1024 * 1024;
const cachePath = (sha: string) => join(dir, 'conversations', sha.slice(0, 2), sha);

interface Row {
  conversation_id: string;
  content_sha256: string;
  size: number;
  ts: string;
}

const started = process.hrtime.bigint();
let blobs = 0;
let rows = 0;
if (leg === 'push') {
  const lines = readFileSync(join(dir, 'conversations.jsonl'), 'utf8').split('\n').filter(Boolean);
  let batch: string[] = [];
  let batchBytes = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    expectStatus(
      await send(target, 'POST', '/sync/conversations', `{"items":[${batch.join(',')}]}`, { 'content-type': 'application/json' }),
      [200],
      'POST conversations',
    );
    rows += batch.length;
    batch = [];
    batchBytes = 0;
  };
  for (const line of lines) {
    const row = JSON.parse(line) as Row;
    let item: string;
    if (row.size < INLINE_BELOW) {
      item = JSON.stringify({ ...row, content_base64: readFileSync(cachePath(row.content_sha256)).toString('base64') });
    } else {
      const head = expectStatus(await send(target, 'HEAD', `/blobs/${row.content_sha256}`), [200, 404], 'HEAD blob');
      if (head.status === 404) {
        const headers = {
          'content-type': 'application/octet-stream',
          'content-length': String(row.size),
          'x-content-sha256': row.content_sha256,
        };
        expectStatus(
          await send(target, 'POST', '/blobs', createReadStream(cachePath(row.content_sha256)), headers),
          [200, 201],
          'POST blob',
        );
        blobs += 1;
      }
      item = line;
    }
    if (batch.length === 500 || (batch.length > 0 && batchBytes + item.length > MAX_BATCH_BYTES)) await flush();
    batch.push(item);
    batchBytes += item.length;
  }
  await flush();
} else {
  const out: string[] = [];
  let after = '';
  for (;;) {
    const response = expectStatus(
      await send(target, 'GET', `/sync/conversations?limit=500${after ? `&after=${encodeURIComponent(after)}` : ''}`),
      [200],
      'GET conversations',
    );
    const page = JSON.parse(response.body.toString('utf8')) as {
      items: Array<Row & { content_base64?: string }>;
      next_cursor: string;
      has_more: boolean;
    };
    for (const { content_base64, ...row } of page.items) {
      mkdirSync(join(dir, 'conversations', row.content_sha256.slice(0, 2)), { recursive: true });
      if (content_base64 !== undefined) writeFileSync(cachePath(row.content_sha256), Buffer.from(content_base64, 'base64'));
      else {
        await download(target, `/blobs/${row.content_sha256}`, createWriteStream(cachePath(row.content_sha256)));
        blobs += 1;
      }
      out.push(JSON.stringify(row));
      rows += 1;
    }
    if (!page.has_more) break;
    after = page.next_cursor;
  }
  writeFileSync(join(dir, 'conversations.jsonl'), out.length ? `${out.join('\n')}\n` : '');
}
report(started, { rows, blobs });
target.agent.destroy();
