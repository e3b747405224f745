// Workload 18: the team view's cost section (issue 33) on each backend. The
// data set is workload 10's (200k traces in 5,000 sessions, a ledger each)
// with a Claude Code transcript with usage for every session (about 8 KB each,
// so they go inline). One machine pushes it all with `push --full`; once the
// view has folded the rows in and read every transcript's usage (the cost
// route's `pending` is 0), each run times, in headless Chromium signed in
// through /ui/sign-in, from navigating to /ui/p/<org>/<project> until the cost
// section's rows by agent are on screen, and the cost route alone through the API.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchBrowser } from '../../test/viewer/browser.js';
import { cachedDataset, seededRandom } from '../dataset.js';
import { clientHome, DATA_DIR, ORG, runFolder, seedProject, startBenchService } from '../environment.js';
import { expectOk, median, round } from '../measure.js';
import type { Result } from '../report.js';
import { claudeTranscript } from './cost-dataset.js';
import { signIn } from './team-view.js';
import { writeViewerDataset, type ViewerDatasetSize } from './viewer-dataset.js';

export async function teamCostWorkload(
  options: { size: ViewerDatasetSize; runs: number; backends: Array<'sqlite' | 'postgres'> },
  log: (line: string) => void,
): Promise<Result[]> {
  const datasetDir = join(DATA_DIR, `team-cost-${options.size.traces}`);
  const dataset = await cachedDataset(datasetDir, options.size, async (dir) => {
    const base = await writeViewerDataset(dir, options.size);
    return { ...base, ...withTranscripts(dir) };
  });
  const size = `${dataset.traces.toLocaleString('en-US')} traces, ${dataset.sessions.toLocaleString('en-US')} sessions with a transcript (${dataset.requests.toLocaleString('en-US')} requests)`;
  const results: Result[] = [];
  for (const backend of options.backends) {
    const folder = runFolder(`team-cost-${backend}`);
    const service = await startBenchService({ backend, dataDir: join(folder, 'service') });
    const token = await service.project('cost');
    const lead = await service.handle.createToken({ org: ORG, name: 'bench-lead' });
    const client = await clientHome(join(folder, 'client'), { url: service.remoteUrl('cost'), token });
    seedProject(client.projectDir, datasetDir);
    const pushStarted = performance.now();
    expectOk(await client.run(['push', '--full', '--quiet']), 'tracer push --full');
    const pushMs = performance.now() - pushStarted;
    const base = `${service.handle.url}/ui`;
    const cookie = await signIn(base, lead);
    const readStarted = performance.now();
    const settled = await costSettled(base, cookie);
    const readMs = performance.now() - readStarted;
    if (settled.totals.requests !== dataset.requests)
      throw new Error(`the cost section counts ${settled.totals.requests} requests, not ${dataset.requests}`);
    const apiMs: number[] = [];
    const pageMs: number[] = [];
    const headless = await launchBrowser();
    try {
      const page = await headless.context.newPage();
      await page.goto(`${base}/sign-in`);
      await page.fill('input[name=token]', lead);
      await Promise.all([page.waitForURL(`${base}/`), page.click('button[type=submit]')]);
      for (let run = 0; run < options.runs; run += 1) {
        const started = performance.now();
        const response = await fetch(`${base}/api/p/${ORG}/cost/cost`, { headers: { cookie } });
        await response.arrayBuffer();
        apiMs.push(performance.now() - started);
        const loading = performance.now();
        await page.goto(`${base}/p/${ORG}/cost`);
        await page.locator('#cost-agent tr').first().waitFor({ timeout: 60_000 });
        pageMs.push(performance.now() - loading);
      }
    } finally {
      await headless.close();
    }
    await service.handle.stop();
    log(
      `  ${backend}: push ${round(pushMs / 1000, 1)} s, every transcript read ${round(readMs / 1000, 1)} s after it, cost route ${apiMs.map((ms) => round(ms)).join(' / ')} ms, project page to the cost rows ${pageMs.map((ms) => round(ms)).join(' / ')} ms`,
    );
    results.push({
      workload: `18. team view (${backend}): cost section, by agent on screen`,
      size,
      tracerMs: round(median(pageMs)),
      bar: '≤ 1500 ms',
      pass: median(pageMs) <= 1500,
      notes: `cost route alone ${round(median(apiMs))} ms; push --full ${round(pushMs / 1000, 1)} s; transcripts read ${round(readMs / 1000, 1)} s after the push`,
      samples: { pageMs, apiMs, pushMs: [pushMs], readMs: [readMs] },
    });
  }
  return results;
}

/** A Claude Code transcript with usage for every session of the viewer data set, indexed as the hooks index them. */
function withTranscripts(dir: string): { requests: number } {
  const random = seededRandom(18);
  const ids = new Set<string>();
  for (const line of readFileSync(join(dir, 'session-summaries.jsonl'), 'utf8').split('\n'))
    if (line) ids.add((JSON.parse(line) as { conversation_id: string }).conversation_id);
  const index = JSON.parse(readFileSync(join(dir, 'conversations', '_index.json'), 'utf8')) as Record<string, string>;
  const rows: string[] = [readFileSync(join(dir, 'conversations.jsonl'), 'utf8').trimEnd()];
  let requests = 0;
  let n = 0;
  for (const id of ids) {
    if (index[id]) continue;
    const transcript = claudeTranscript(id, 8_000, 'claude-sonnet-4-5-20250929', Date.UTC(2025, 9, 1) + n * 3_600_000, random);
    n += 1;
    requests += transcript.requests;
    const sha = createHash('sha256').update(transcript.bytes).digest('hex');
    mkdirSync(join(dir, 'conversations', sha.slice(0, 2)), { recursive: true });
    writeFileSync(join(dir, 'conversations', sha.slice(0, 2), sha), transcript.bytes);
    index[id] = sha;
    rows.push(JSON.stringify({ conversation_id: id, content_sha256: sha, size: transcript.bytes.length, ts: '2025-10-01T00:00:00.000Z' }));
  }
  writeFileSync(join(dir, 'conversations', '_index.json'), JSON.stringify(index));
  writeFileSync(join(dir, 'conversations.jsonl'), `${rows.join('\n')}\n`);
  return { requests };
}

/** The cost route, asked every 250 ms until every pushed transcript is read. */
async function costSettled(base: string, cookie: string): Promise<{ pending: number; totals: { requests: number } }> {
  for (;;) {
    const response = await fetch(`${base}/api/p/${ORG}/cost/cost`, { headers: { cookie } });
    if (!response.ok) throw new Error(`the cost route answered ${response.status}`);
    const cost = (await response.json()) as { pending: number; totals: { requests: number } };
    if (cost.pending === 0 && cost.totals.requests > 0) return cost;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
