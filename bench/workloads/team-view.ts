import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnService } from '../../test/helpers/service.js';
import { launchBrowser } from '../../test/viewer/browser.js';
import { cachedDataset } from '../dataset.js';
import { clientHome, DATA_DIR, ORG, runFolder, seedProject, startBenchService } from '../environment.js';
import { expectOk, median, round } from '../measure.js';
import type { Result } from '../report.js';
import { writeViewerDataset, type ViewerDatasetSize } from './viewer-dataset.js';

/**
 * Workload 10: the team view of `tracer serve` (issue 22), on each backend.
 * One machine pushes the viewer's data set (200k traces, 5k sessions, each
 * with a ledger, commit link and summary) with `push --full`; then, signed in
 * through /ui/sign-in in headless Chromium, each run times from navigation to
 * /ui/p/<org>/<project> until its newest session is on screen. Also measured:
 * how long the first read takes at once after the push, how long until the
 * progress route says the view's tables are caught up, a search and the
 * last page of commits through the API, and the service's resident memory
 * (VmRSS) before the page loads and after all of them: it must stay flat.
 * The same push to a service with the team view off (`--disable-route ui`)
 * shows what keeping its tables costs a push.
 */
export async function teamViewWorkload(
  options: { size: ViewerDatasetSize; runs: number; backends: Array<'sqlite' | 'postgres'> },
  log: (line: string) => void,
): Promise<Result[]> {
  const datasetDir = join(DATA_DIR, `team-view-${options.size.traces}`);
  const dataset = await cachedDataset(datasetDir, options.size, (dir) => writeViewerDataset(dir, options.size));
  const size = `${dataset.traces} traces, ${dataset.sessions} sessions and ledgers`;
  const results: Result[] = [];
  for (const backend of options.backends) {
    const folder = runFolder(`team-view-${backend}`);
    const service = await startBenchService({ backend, dataDir: join(folder, 'service') });
    const token = await service.project('team');
    const lead = await service.handle.createToken({ org: ORG, name: 'bench-lead' });
    const client = await clientHome(join(folder, 'client'), { url: service.remoteUrl('team'), token });
    seedProject(client.projectDir, datasetDir);
    const pushStarted = performance.now();
    expectOk(await client.run(['push', '--full', '--quiet']), 'tracer push --full');
    const pushEnded = performance.now();
    const pushMs = pushEnded - pushStarted;
    const base = `${service.handle.url}/ui`;
    const cookie = await signIn(base, lead);
    // At once after the push: the first read answers, waiting only when few rows are behind.
    const firstReadMs = await timed(() => fetch(`${base}/api/p/${ORG}/team/stats`, { headers: { cookie } }));
    // Then until the progress route says every row is folded in, counted from the end of the push.
    await caughtUp(base, cookie);
    const catchUpMs = performance.now() - pushEnded;
    const stats = (await (await fetch(`${base}/api/p/${ORG}/team/stats`, { headers: { cookie } })).json()) as { traces: number };
    if (stats.traces !== dataset.traces) throw new Error(`the team view counts ${stats.traces} traces, not ${dataset.traces}`);
    const withoutMs = await pushWithoutView(backend, join(folder, 'without'), datasetDir);
    const pid = service.handle.pid()!;
    const rssBeforeKb = rssKb(pid);
    const pageMs: number[] = [];
    const headless = await launchBrowser();
    try {
      const page = await headless.context.newPage();
      await page.goto(`${base}/sign-in`);
      await page.fill('input[name=token]', lead);
      await Promise.all([page.waitForURL(`${base}/`), page.click('button[type=submit]')]);
      for (let run = 0; run < options.runs; run += 1) {
        const started = performance.now();
        await page.goto(`${base}/p/${ORG}/team`);
        await page.locator('#sessions li.session').first().waitFor({ timeout: 60_000 });
        pageMs.push(performance.now() - started);
        await page.locator('#share-person tr').first().waitFor({ timeout: 60_000 });
      }
    } finally {
      await headless.close();
    }
    const searchMs = await timed(() => fetch(`${base}/api/p/${ORG}/team/sessions?q=routes&limit=30`, { headers: { cookie } }));
    const lastCommitsMs = await timed(() =>
      fetch(`${base}/api/p/${ORG}/team/commits?limit=30&offset=${dataset.sessions - 30}`, { headers: { cookie } }),
    );
    const rssAfterKb = rssKb(pid);
    await service.handle.stop();
    const growthMb = round((rssAfterKb - rssBeforeKb) / 1024, 1);
    const rssMb = round(rssAfterKb / 1024, 1);
    log(
      `  ${backend}: push ${round(pushMs / 1000, 1)} s (${round(withoutMs / 1000, 1)} s with the team view off), first read ${round(firstReadMs)} ms after it, caught up ${round(catchUpMs)} ms after it, project page ${pageMs.map((ms) => round(ms)).join(' / ')} ms, search ${round(searchMs)} ms, last commits ${round(lastCommitsMs)} ms, RSS ${round(rssBeforeKb / 1024, 1)} → ${rssMb} MiB`,
    );
    const ms = median(pageMs);
    results.push({
      workload: `10. team view (${backend}): project page, newest sessions`,
      size,
      tracerMs: round(ms),
      peakRssMb: rssMb,
      bar: '≤ 1500 ms; service RSS grows < 50 MiB over the page loads',
      pass: ms <= 1500 && growthMb < 50,
      notes: `push --full ${round(pushMs / 1000, 1)} s (team view off: ${round(withoutMs / 1000, 1)} s); first read ${round(firstReadMs)} ms, view caught up ${round(catchUpMs)} ms after it; search ${round(searchMs)} ms; last commits page ${round(lastCommitsMs)} ms; RSS +${growthMb} MiB`,
      samples: {
        pageMs,
        pushMs: [pushMs],
        pushWithoutViewMs: [withoutMs],
        firstReadMs: [firstReadMs],
        catchUpMs: [catchUpMs],
        rssKb: [rssBeforeKb, rssAfterKb],
      },
    });
  }
  return results;
}

/** The same push to a fresh service with the team view switched off. */
async function pushWithoutView(backend: 'sqlite' | 'postgres', folder: string, datasetDir: string): Promise<number> {
  const handle = await spawnService({ backend, dataDir: join(folder, 'service'), logLevel: 'error', disableRoutes: ['ui'] });
  try {
    await handle.createProject(ORG, 'team');
    const token = await handle.createToken({ org: ORG, project: 'team', name: 'bench-team' });
    const client = await clientHome(join(folder, 'client'), { url: `${handle.url}/${ORG}/team`, token });
    seedProject(client.projectDir, datasetDir);
    const started = performance.now();
    expectOk(await client.run(['push', '--full', '--quiet']), 'tracer push --full (team view off)');
    return performance.now() - started;
  } finally {
    await handle.stop();
  }
}

/** Signs in to the team view with a token; the session cookie, for API requests. */
export async function signIn(base: string, token: string): Promise<string> {
  const response = await fetch(`${base}/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }).toString(),
    redirect: 'manual',
  });
  const cookie = response.headers.get('set-cookie')?.split(';')[0];
  if (response.status !== 303 || !cookie) throw new Error(`sign-in answered ${response.status}`);
  return cookie;
}

/** Asks the progress route every 100 ms until the view holds every pushed row. */
async function caughtUp(base: string, cookie: string): Promise<void> {
  for (;;) {
    const response = await fetch(`${base}/api/p/${ORG}/team/progress`, { headers: { cookie } });
    if (!response.ok) throw new Error(`the progress route answered ${response.status}`);
    if (!((await response.json()) as { catching_up: boolean }).catching_up) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function timed(request: () => Promise<Response>): Promise<number> {
  const started = performance.now();
  const response = await request();
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`the team view answered ${response.status}`);
  return performance.now() - started;
}

function rssKb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
}
