// Workloads 1-3: push a trace/ledger/commit-link data set to a fresh SQLite
// service, push it again with nothing new, pull it into an empty home; each
// against its raw baseline measured in the same run on the same machine.
import { join } from 'node:path';
import { cachedDataset, writeSyncDataset, type SyncDatasetSize } from '../dataset.js';
import { clientHome, DATA_DIR, runBaseline, runFolder, seedProject, startBenchService } from '../environment.js';
import { expectOk, median, mib, round } from '../measure.js';
import type { Result } from '../report.js';

export interface SyncWorkloadOptions {
  size: SyncDatasetSize;
  runs: number;
  noopRuns: number;
}

/** The generated folder for `size`, built on first use. */
export async function syncDataset(size: SyncDatasetSize) {
  const dir = join(DATA_DIR, `sync-${size.traces}`);
  return { dir, summary: await cachedDataset(dir, size, (target) => writeSyncDataset(target, size)) };
}

export async function syncWorkloads(options: SyncWorkloadOptions, log: (line: string) => void): Promise<Result[]> {
  const { dir: datasetDir, summary: dataset } = await syncDataset(options.size);
  log(
    `data set: ${dataset.traces} traces, ${dataset.ledgers} ledgers, ${dataset.commitLinks} commit links, ${round(dataset.bytes / 2 ** 20, 1)} MiB`,
  );
  const samples = {
    push: [] as number[],
    pushBase: [] as number[],
    pushRss: [] as number[],
    noop: [] as number[],
    version: [] as number[],
    pull: [] as number[],
    pullBase: [] as number[],
    pullRss: [] as number[],
  };
  for (let run = 0; run < options.runs; run += 1) {
    // Baseline and tracer alternate which goes first, so drift in machine load hits both alike.
    const order = run % 2 === 0 ? ['tracer', 'baseline'] : ['baseline', 'tracer'];
    for (const who of order) {
      const dir = runFolder(`sync-${who}`);
      const service = await startBenchService({ backend: 'sqlite', dataDir: join(dir, 'service') });
      try {
        const token = await service.project('sync');
        if (who === 'baseline') {
          const pushed = await runBaseline('push-raw.ts', [service.remoteUrl('sync'), token, datasetDir]);
          samples.pushBase.push(pushed.wallMs);
          const pulled = await runBaseline('pull-raw.ts', [service.remoteUrl('sync'), token, join(dir, 'pulled')]);
          samples.pullBase.push(pulled.wallMs);
          log(
            `  run ${run + 1} baseline: push ${round(pushed.wallMs)} ms (${round(pushed.ms)} after its start, ${pushed.detail.items} items), pull ${round(pulled.wallMs)} ms (${round(pulled.ms)})`,
          );
          continue;
        }
        const client = await clientHome(join(dir, 'client'), { url: service.remoteUrl('sync'), token });
        seedProject(client.projectDir, datasetDir);
        const push = expectOk(await client.run(['push'], { memory: true }), 'tracer push');
        samples.push.push(push.wallMs);
        samples.pushRss.push(push.maxRssKb ?? NaN);
        const noops: number[] = [];
        for (let n = 0; n < options.noopRuns; n += 1) {
          const noop = expectOk(await client.run(['push']), 'tracer push (no-op)');
          if (!/Pushed 0 items/.test(noop.stdout)) throw new Error(`the second push was not a no-op:\n${noop.stdout}`);
          noops.push(noop.wallMs);
          samples.version.push(expectOk(await client.run(['--version']), 'tracer --version').wallMs);
        }
        samples.noop.push(median(noops));
        const puller = await clientHome(join(dir, 'puller'), { url: service.remoteUrl('sync'), token });
        const pull = expectOk(await puller.run(['pull'], { memory: true }), 'tracer pull');
        samples.pull.push(pull.wallMs);
        samples.pullRss.push(pull.maxRssKb ?? NaN);
        log(
          `  run ${run + 1} tracer: push ${round(push.wallMs)} ms (${mib(push.maxRssKb)} MiB), no-op ${round(median(noops))} ms, pull ${round(pull.wallMs)} ms (${mib(pull.maxRssKb)} MiB)`,
        );
      } finally {
        await service.handle.stop();
      }
    }
  }
  const size = `${dataset.traces} traces + ${dataset.ledgers} ledgers + ${dataset.commitLinks} commit links`;
  const version = median(samples.version);
  return [
    {
      ...ratioResult('1. push', size, median(samples.push), median(samples.pushBase), 1.0, median(samples.pushRss)),
      samples: { tracer: samples.push, baseline: samples.pushBase, peakRssKb: samples.pushRss },
    },
    {
      workload: '2. no-op push',
      size,
      tracerMs: round(median(samples.noop)),
      baselineMs: round(version),
      baselineLabel: 'tracer --version',
      ratio: round(median(samples.noop) / version),
      bar: '≤ 0.4 s and ≤ 1.5× --version',
      pass: median(samples.noop) <= 400 && median(samples.noop) <= 1.5 * version,
      samples: { tracer: samples.noop, baseline: samples.version },
    },
    {
      ...ratioResult('3. pull', size, median(samples.pull), median(samples.pullBase), 1.2, median(samples.pullRss)),
      samples: { tracer: samples.pull, baseline: samples.pullBase, peakRssKb: samples.pullRss },
    },
  ];
}

export function ratioResult(
  workload: string,
  size: string,
  tracerMs: number,
  baselineMs: number,
  bar: number,
  rssKb?: number,
  rssBarMb?: number,
): Result {
  const ratio = tracerMs / baselineMs;
  const rssOk = rssBarMb === undefined || (rssKb !== undefined && rssKb / 1024 < rssBarMb);
  return {
    workload,
    size,
    tracerMs: round(tracerMs),
    baselineMs: round(baselineMs),
    baselineLabel: 'raw script',
    ratio: round(ratio),
    peakRssMb: mib(rssKb),
    bar: `≤ ${bar.toFixed(1)}× baseline${rssBarMb === undefined ? '' : `, RSS < ${rssBarMb} MB`}`,
    pass: ratio <= bar && rssOk,
  };
}
