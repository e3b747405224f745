// Baseline of workload 3: page through every family with GET ?after=&limit=500
// and append each item to a JSONL file, sequentially, over one kept-alive
// connection. No dedup, no verification: only the wire and the disk.
// Usage: pull-raw.ts <remote-url> <token> <out-dir>
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expectStatus, rawTarget, report, send } from './raw-http.js';

const [remoteUrl, token, dir] = process.argv.slice(2) as [string, string, string];
const target = rawTarget(remoteUrl, token);
mkdirSync(dir, { recursive: true });

const started = process.hrtime.bigint();
let items = 0;
let requests = 0;
for (const family of ['traces', 'ledgers', 'commit-links', 'summaries']) {
  const out = createWriteStream(join(dir, `${family}.jsonl`));
  let after = '';
  for (;;) {
    const response = expectStatus(
      await send(target, 'GET', `/sync/${family}?limit=500${after ? `&after=${encodeURIComponent(after)}` : ''}`),
      [200],
      `GET ${family}`,
    );
    requests += 1;
    const page = JSON.parse(response.body.toString('utf8')) as { items: unknown[]; next_cursor: string; has_more: boolean };
    if (page.items.length > 0) out.write(`${page.items.map((item) => JSON.stringify(item)).join('\n')}\n`);
    items += page.items.length;
    if (!page.has_more) break;
    after = page.next_cursor;
  }
  await new Promise((resolve) => out.end(resolve));
}
report(started, { items, requests });
target.agent.destroy();
