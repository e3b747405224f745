import { linkSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cachedDataset, writeLargeTraces } from '../dataset.js';
import { clientHome, DATA_DIR, runFolder, startBenchService } from '../environment.js';
import { expectOk, median, mib, round } from '../measure.js';
import type { Result } from '../report.js';

/** Workload 6: a very large traces.jsonl; `tracer status` and `tracer push --dry-run` must stream it (peak RSS < 200 MB). */
export async function largeFileWorkload(options: { bytes: number; runs: number }, log: (line: string) => void): Promise<Result[]> {
  const datasetDir = join(DATA_DIR, `large-${options.bytes}`);
  const dataset = await cachedDataset(datasetDir, { bytes: options.bytes }, (dir) =>
    writeLargeTraces(join(dir, 'traces.jsonl'), options.bytes),
  );
  log(`data set: ${dataset.traces} traces, ${round(dataset.bytes / 2 ** 20, 0)} MiB`);
  const dir = runFolder('large');
  const service = await startBenchService({ backend: 'sqlite', dataDir: join(dir, 'service') });
  const results: Result[] = [];
  try {
    const token = await service.project('large');
    const client = await clientHome(join(dir, 'client'), { url: service.remoteUrl('large'), token });
    // A hard link, not a copy: neither command writes to traces.jsonl.
    rmSync(join(client.projectDir, 'traces.jsonl'), { force: true });
    linkSync(join(datasetDir, 'traces.jsonl'), join(client.projectDir, 'traces.jsonl'));
    const size = `traces.jsonl of ${round(dataset.bytes / 2 ** 30, 2)} GiB (${dataset.traces} traces)`;
    for (const [label, args] of [
      ['6. status', ['status']],
      ['6. push --dry-run', ['push', '--dry-run']],
    ] as const) {
      const times: number[] = [];
      const rss: number[] = [];
      for (let n = 0; n < options.runs; n += 1) {
        const result = expectOk(await client.run(args, { memory: true }), `tracer ${args.join(' ')}`);
        times.push(result.wallMs);
        rss.push(result.maxRssKb ?? NaN);
      }
      const peak = Math.max(...rss);
      log(`  ${args.join(' ')}: ${round(median(times))} ms, peak RSS ${mib(peak)} MiB`);
      results.push({
        workload: label,
        size,
        tracerMs: round(median(times)),
        peakRssMb: mib(peak),
        bar: 'RSS < 200 MB',
        pass: peak / 1024 < 200,
        notes: `${round(dataset.bytes / 2 ** 20 / (median(times) / 1000), 0)} MiB/s`,
      });
    }
  } finally {
    await service.handle.stop();
  }
  return results;
}
