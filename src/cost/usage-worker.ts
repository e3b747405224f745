// A worker thread of usage-workers.ts: reads the snapshots it is sent, one at
// a time, and answers each with its usage (or nothing, when its bytes are not here).
import { parentPort, workerData } from 'node:worker_threads';
import type { FormatContext } from '../transcript/agents.js';
import { readSnapshotUsage } from './usage-cache.js';

const { projectDir, context } = workerData as { projectDir: string; context: FormatContext };

parentPort!.on('message', (task: { index: number; sha: string; agent: string | null }) => {
  readSnapshotUsage(projectDir, context, task.sha, task.agent).then(
    (entry) => parentPort!.postMessage({ index: task.index, entry }),
    (error: unknown) => parentPort!.postMessage({ index: task.index, failed: String(error) }),
  );
});
