// Workload 17: `tracer stats --cost` over a whole history of 10,000
// conversations (one commit each, about 2 GB of Claude Code transcripts) as
// the built CLI runs it. Cold: no cache at all (`<project>/cache/` removed:
// every transcript read, the lines' fates walked, the tip blamed); warm: the
// same command again, every transcript's usage read from cache/usage.jsonl.
// The baseline is `tracer stats` without --cost on the same history, run
// alternately with the warm runs. Figures are checked: every conversation
// known, every request counted.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, cleanEnv } from '../../test/helpers/cli.js';
import { cachedDataset } from '../dataset.js';
import { DATA_DIR } from '../environment.js';
import { expectOk, measure, median, mib, round } from '../measure.js';
import type { Result } from '../report.js';
import { writeCostDataset, type CostDatasetSize } from './cost-dataset.js';

export async function costWorkload(options: { size: CostDatasetSize; runs: number }, log: (line: string) => void): Promise<Result[]> {
  const datasetDir = join(DATA_DIR, `cost-${options.size.conversations}-${options.size.transcriptBytes}`);
  const dataset = await cachedDataset(datasetDir, options.size, (dir) => writeCostDataset(dir, options.size, log));
  const env = { ...cleanEnv(), TRACER_HOME: dataset.home, NO_COLOR: '1' };
  const spec = (args: string[]) => ({ command: process.execPath, args: [BIN, ...args], cwd: dataset.repo, env });
  // The text a person reads is what is timed; --json (a line per conversation) checks the figures once per run.
  const cost = spec(['stats', '--cost']);
  const plain = spec(['stats']);
  const json = spec(['stats', '--cost', '--json']);
  const check = (stdout: string) => {
    const report = JSON.parse(stdout) as { commits: number; cost: { conversations: number; requests: number; usage: { known: number } } };
    if (report.cost.conversations !== dataset.conversations || report.cost.usage.known !== dataset.conversations)
      throw new Error(
        `stats --cost saw ${report.cost.conversations} conversations (${report.cost.usage.known} known), not ${dataset.conversations}`,
      );
    if (report.cost.requests !== dataset.requests)
      throw new Error(`stats --cost counted ${report.cost.requests} requests, not ${dataset.requests}`);
  };
  const samples = {
    cold: [] as number[],
    warm: [] as number[],
    plain: [] as number[],
    coldRss: [] as number[],
    warmRss: [] as number[],
    coldCpu: [] as number[],
    warmCpu: [] as number[],
    plainCpu: [] as number[],
  };
  // One warm-up of the plain command: git's and the OS's caches, as on any machine that has the repository open.
  expectOk(await measure(plain), 'tracer stats');
  for (let run = 0; run < options.runs; run += 1) {
    rmSync(join(dataset.projectDir, 'cache'), { recursive: true, force: true });
    const cold = expectOk(await measure(cost, { memory: true }), 'tracer stats --cost (cold)');
    check(expectOk(await measure(json), 'tracer stats --cost --json').stdout);
    samples.cold.push(cold.wallMs);
    if (cold.maxRssKb) samples.coldRss.push(cold.maxRssKb);
    if (cold.cpuMs !== undefined) samples.coldCpu.push(cold.cpuMs);
    // Warm and plain alternate, so that the load of the moment weighs on both alike.
    for (let again = 0; again < 3; again += 1) {
      const order = again % 2 === 0 ? ([cost, plain] as const) : ([plain, cost] as const);
      for (const which of order) {
        const result = expectOk(await measure(which, { memory: true }), which === cost ? 'tracer stats --cost (warm)' : 'tracer stats');
        if (which === cost) {
          samples.warm.push(result.wallMs);
          if (result.maxRssKb) samples.warmRss.push(result.maxRssKb);
          if (result.cpuMs !== undefined) samples.warmCpu.push(result.cpuMs);
        } else {
          samples.plain.push(result.wallMs);
          if (result.cpuMs !== undefined) samples.plainCpu.push(result.cpuMs);
        }
      }
    }
  }
  const [cold, warm, base] = [median(samples.cold), median(samples.warm), median(samples.plain)];
  const size = `${dataset.conversations.toLocaleString('en-US')} conversations, ${round(dataset.transcriptBytes / 2 ** 30, 2)} GiB of transcripts, ${dataset.requests.toLocaleString('en-US')} requests, ${dataset.commits.toLocaleString('en-US')} commits`;
  const cpu = (values: number[]) => (values.length === 0 ? 'n/a' : `${round(median(values))} ms CPU`);
  log(
    `  cold ${samples.cold.map((ms) => round(ms)).join(' / ')} ms (${cpu(samples.coldCpu)}), warm ${samples.warm.map((ms) => round(ms)).join(' / ')} ms (${cpu(samples.warmCpu)}), stats without --cost ${samples.plain.map((ms) => round(ms)).join(' / ')} ms (${cpu(samples.plainCpu)})`,
  );
  return [
    {
      workload: '17. stats --cost, warm (usage read from cache/usage.jsonl)',
      size,
      tracerMs: round(warm),
      baselineMs: round(base),
      baselineLabel: 'tracer stats (no --cost), alternating',
      ratio: round(warm / base),
      peakRssMb: mib(Math.max(...samples.warmRss)),
      bar: '≤ 1 s',
      pass: warm <= 1000,
      notes: `CPU (user + system, git included): ${cpu(samples.warmCpu)}; without --cost ${cpu(samples.plainCpu)}`,
      samples: {
        tracer: samples.warm,
        baseline: samples.plain,
        rssKb: samples.warmRss,
        cpuMs: samples.warmCpu,
        baselineCpuMs: samples.plainCpu,
      },
    },
    {
      workload: '17. stats --cost, cold (no cache: every transcript read, every AI line followed)',
      size,
      tracerMs: round(cold),
      peakRssMb: mib(Math.max(...samples.coldRss)),
      bar: '≤ 10 s',
      pass: cold <= 10_000,
      notes: `${round(dataset.transcriptBytes / 2 ** 20 / (cold / 1000))} MB/s of transcripts; CPU (user + system, every thread, git included): ${cpu(samples.coldCpu)}`,
      samples: { tracer: samples.cold, rssKb: samples.coldRss, cpuMs: samples.coldCpu },
    },
  ];
}
