import { join } from 'node:path';
import { cachedDataset, writeConversationDataset, type ConversationDatasetSize } from '../dataset.js';
import { clientHome, DATA_DIR, runBaseline, runFolder, seedProject, startBenchService } from '../environment.js';
import { expectOk, median, mib, round } from '../measure.js';
import type { Result } from '../report.js';
import { ratioResult } from './sync.js';

/** Workload 4: transcripts through the blob routes, push and pull, peak RSS and time against the raw HEAD/POST/GET baseline. */
export async function conversationWorkload(
  options: { size: ConversationDatasetSize; runs: number },
  log: (line: string) => void,
): Promise<Result[]> {
  const datasetDir = join(DATA_DIR, `conversations-${options.size.count}`);
  const dataset = await cachedDataset(datasetDir, options.size, (dir) => writeConversationDataset(dir, options.size));
  log(`data set: ${dataset.count} transcripts, ${round(dataset.bytes / 2 ** 20, 1)} MiB`);
  const samples = {
    push: [] as number[],
    pushBase: [] as number[],
    pushRss: [] as number[],
    pull: [] as number[],
    pullBase: [] as number[],
    pullRss: [] as number[],
  };
  for (let run = 0; run < options.runs; run += 1) {
    const order = run % 2 === 0 ? ['tracer', 'baseline'] : ['baseline', 'tracer'];
    for (const who of order) {
      const dir = runFolder(`conversations-${who}`);
      const service = await startBenchService({ backend: 'sqlite', dataDir: join(dir, 'service') });
      try {
        const token = await service.project('talk');
        const url = service.remoteUrl('talk');
        if (who === 'baseline') {
          const pushed = await runBaseline('conversations-raw.ts', ['push', url, token, datasetDir]);
          const pulled = await runBaseline('conversations-raw.ts', ['pull', url, token, join(dir, 'pulled')]);
          samples.pushBase.push(pushed.wallMs);
          samples.pullBase.push(pulled.wallMs);
          log(
            `  run ${run + 1} baseline: push ${round(pushed.wallMs)} ms (${round(pushed.ms)} after its start), pull ${round(pulled.wallMs)} ms (${round(pulled.ms)})`,
          );
          continue;
        }
        const client = await clientHome(join(dir, 'client'), { url, token });
        seedProject(client.projectDir, datasetDir);
        const push = expectOk(await client.run(['push'], { memory: true }), 'tracer push (conversations)');
        const puller = await clientHome(join(dir, 'puller'), { url, token });
        const pull = expectOk(await puller.run(['pull'], { memory: true }), 'tracer pull (conversations)');
        if (!new RegExp(`conversations: ${dataset.count} received, ${dataset.count} added`).test(pull.stdout))
          throw new Error(`the pull did not bring every transcript:\n${pull.stdout}`);
        samples.push.push(push.wallMs);
        samples.pushRss.push(push.maxRssKb ?? NaN);
        samples.pull.push(pull.wallMs);
        samples.pullRss.push(pull.maxRssKb ?? NaN);
        log(
          `  run ${run + 1} tracer: push ${round(push.wallMs)} ms (${mib(push.maxRssKb)} MiB), pull ${round(pull.wallMs)} ms (${mib(pull.maxRssKb)} MiB)`,
        );
      } finally {
        await service.handle.stop();
      }
    }
  }
  const size = `${dataset.count} transcripts, ${round(dataset.bytes / 2 ** 20, 0)} MiB`;
  return [
    {
      ...ratioResult('4. conversations push', size, median(samples.push), median(samples.pushBase), 1.5, Math.max(...samples.pushRss), 150),
      samples: { tracer: samples.push, baseline: samples.pushBase, peakRssKb: samples.pushRss },
    },
    {
      ...ratioResult('4. conversations pull', size, median(samples.pull), median(samples.pullBase), 1.5, Math.max(...samples.pullRss), 150),
      samples: { tracer: samples.pull, baseline: samples.pullBase, peakRssKb: samples.pullRss },
    },
  ];
}
