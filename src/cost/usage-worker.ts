// A worker thread of usage-workers.ts: reads the batches of snapshots it is
// sent and answers each batch with their usage (null for a snapshot whose
// bytes are not here, `failed` for one that could not be read).
import { parentPort, workerData } from 'node:worker_threads';
import type { FormatContext } from '../transcript/agents.js';
import { readSnapshotUsage } from './usage-cache.js';

const { projectDir, context } = workerData as { projectDir: string; context: FormatContext };

parentPort!.on('message', (batch: Array<{ index: number; sha: string; agent: string | null }>) => {
  void Promise.all(
    batch.map(async (task) => {
      try {
        const entry = await readSnapshotUsage(projectDir, context, task.sha, task.agent);
        return { index: task.index, json: entry === undefined ? null : JSON.stringify(entry) };
      } catch (error) {
        return { index: task.index, failed: String(error) };
      }
    }),
  ).then((answers) => parentPort!.postMessage(answers));
});
