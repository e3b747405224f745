// Baseline of workload 1: read the same JSONL files and POST the same 500-item
// batches, sequentially, over one kept-alive connection, doing nothing else
// (no parsing: the lines are joined into the body as they are).
// Usage: push-raw.ts <remote-url> <token> <project-dir>
import { createReadStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { expectStatus, rawTarget, report, send } from './raw-http.js';

const [remoteUrl, token, dir] = process.argv.slice(2) as [string, string, string];
const target = rawTarget(remoteUrl, token);
const FILES: Array<[string, string]> = [
  ['traces', 'traces.jsonl'],
  ['ledgers', 'ledgers.jsonl'],
  ['commit-links', 'commit-links.jsonl'],
  // Workload 12's data set has summaries; workload 1's has none.
  ['summaries', 'session-summaries.jsonl'],
];

const started = process.hrtime.bigint();
let items = 0;
let requests = 0;
for (const [family, file] of FILES) {
  const path = join(dir, file);
  if (!existsSync(path)) continue;
  let batch: string[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    expectStatus(
      await send(target, 'POST', `/sync/${family}`, `{"items":[${batch.join(',')}]}`, { 'content-type': 'application/json' }),
      [200],
      `POST ${family}`,
    );
    items += batch.length;
    requests += 1;
    batch = [];
  };
  for await (const line of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) {
    if (line === '') continue;
    batch.push(line);
    if (batch.length === 500) await flush();
  }
  await flush();
}
report(started, { items, requests });
target.agent.destroy();
