import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv } from '../../test/helpers/cli.js';
import { launchBrowser } from '../../test/viewer/browser.js';
import { cachedDataset } from '../dataset.js';
import { BIN, clientHome, DATA_DIR, runFolder, seedProject } from '../environment.js';
import { median, round } from '../measure.js';
import type { Result } from '../report.js';
import { writeViewerDataset, type ViewerDatasetSize } from './viewer-dataset.js';

/**
 * Workload 8: the viewer (issue 15). Each run starts a fresh `tracer view
 * --no-open` and measures, in headless Chromium: spawn to URL on stdout; from
 * navigation to the project page until its newest session is on screen; from
 * navigation to the 8 MB transcript's session page until its first message is
 * on screen. The viewer's peak RSS (VmHWM, from the kernel) is read after it
 * has also served every page of the transcript and the commit list.
 */
export async function viewerWorkload(options: { size: ViewerDatasetSize; runs: number }, log: (line: string) => void): Promise<Result[]> {
  const datasetDir = join(DATA_DIR, `viewer-${options.size.traces}`);
  const dataset = await cachedDataset(datasetDir, options.size, (dir) => writeViewerDataset(dir, options.size));
  log(
    `data set: ${dataset.traces} traces in ${dataset.sessions} sessions, ${round(dataset.bytes / 2 ** 20, 0)} MiB of JSONL, transcript ${round(dataset.transcriptBytes / 2 ** 20, 1)} MiB`,
  );
  const client = await clientHome(join(runFolder('viewer'), 'client'));
  seedProject(client.projectDir, datasetDir);
  const projectId = JSON.parse(readFileSync(join(client.home, 'projects.json'), 'utf8')).projects;
  const id = Object.keys(projectId)[0]!;
  const samples = { url: [] as number[], project: [] as number[], transcript: [] as number[], rssKb: [] as number[] };
  const headless = await launchBrowser();
  try {
    for (let run = 0; run < options.runs; run += 1) {
      for (const target of ['project', 'transcript'] as const) {
        const viewer = await startTimed(client.home, client.repo);
        samples.url.push(viewer.urlMs);
        const page = await headless.context.newPage();
        const path = target === 'project' ? `/p/${encodeURIComponent(id)}` : `/p/${encodeURIComponent(id)}/sessions/${dataset.bigSession}`;
        const started = performance.now();
        await page.goto(`${viewer.origin}${path}?token=${viewer.token}`);
        await page
          .locator(target === 'project' ? '#sessions li.session' : '#transcript li.msg')
          .first()
          .waitFor({ timeout: 60_000 });
        samples[target].push(performance.now() - started);
        if (target === 'transcript') await walk(page, viewer.origin, id, dataset.bigSession);
        samples.rssKb.push(peakRssKb(viewer.pid));
        await page.close();
        await viewer.stop();
      }
      log(
        `  run ${run + 1}: URL ${round(samples.url.at(-1)!)} ms, project page ${round(samples.project.at(-1)!)} ms, transcript ${round(samples.transcript.at(-1)!)} ms, peak RSS ${round(Math.max(...samples.rssKb) / 1024, 1)} MiB`,
      );
    }
  } finally {
    await headless.close();
  }
  const size = `${dataset.traces} traces, ${dataset.sessions} sessions and ledgers; ${round(dataset.transcriptBytes / 2 ** 20, 1)} MiB transcript`;
  const peakMb = round(Math.max(...samples.rssKb) / 1024, 1);
  const row = (workload: string, ms: number, bar: number): Result => ({
    workload,
    size,
    tracerMs: round(ms),
    peakRssMb: peakMb,
    bar: `≤ ${bar} ms, peak RSS < 300 MB`,
    pass: ms <= bar && peakMb < 300,
  });
  return [
    { ...row('9. view: URL printed', median(samples.url), 500), samples: { urlMs: samples.url } },
    {
      ...row('9. view: project page, newest sessions', median(samples.project), 2000),
      samples: { projectMs: samples.project, peakRssKb: samples.rssKb },
    },
    { ...row('9. view: 8 MB transcript, first messages', median(samples.transcript), 1500), samples: { transcriptMs: samples.transcript } },
  ];
}

/** Every page of the transcript and of the commit list, through the API, so that the peak RSS covers them. */
async function walk(page: import('playwright-core').Page, origin: string, project: string, session: string): Promise<void> {
  await page.evaluate(
    async ({ base, commits }) => {
      let cursor: string | null = '';
      while (cursor !== null) {
        const response = await fetch(`${base}/transcript?limit=500${cursor ? `&cursor=${cursor}` : ''}`);
        const body = (await response.json()) as { next: string | null };
        cursor = body.next;
      }
      for (let offset = 0; offset < 2_000; offset += 200) await (await fetch(`${commits}?limit=200&offset=${offset}`)).json();
    },
    {
      base: `${origin}/api/p/${encodeURIComponent(project)}/sessions/${session}`,
      commits: `${origin}/api/p/${encodeURIComponent(project)}/commits`,
    },
  );
}

function peakRssKb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? NaN);
}

async function startTimed(home: string, cwd: string) {
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, 'view', '--no-open'], { cwd, env: { ...cleanEnv(), TRACER_HOME: home, NO_COLOR: '1' } });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`tracer view exited ${code}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
    });
  });
  const urlMs = performance.now() - started;
  const parsed = new URL(url);
  return {
    urlMs,
    origin: parsed.origin,
    token: parsed.searchParams.get('token')!,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        child.removeAllListeners('exit');
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
