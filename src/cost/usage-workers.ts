// Reading many transcripts the first time (10,000 of them, 2 GB) is parsing:
// one core's work per transcript. A pool of worker threads, one per core, reads
// them side by side; each answers a snapshot's usage and is sent the next. A
// worker that fails or dies leaves its snapshots to the caller, which reads
// them itself: nothing is lost and nothing waits on a dead thread.
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { programModulePath } from '../core/program-module.js';
import type { FormatContext } from '../transcript/agents.js';
import type { SnapshotUsage } from './usage-cache.js';

/** The worker's module (a file of its own in the build, scripts/build.mjs). */
export const WORKER_MODULE = 'cost/usage-worker';

/** Fewer snapshots than this are read in the caller's thread: starting workers would cost more. */
export const WORKERS_FROM = 32;
/** Snapshots per message to a worker. */
const BATCH = 8;

export interface UsageTask {
  sha: string;
  agent: string | null;
}

/** Each task's usage (`null`: its bytes are not here), or undefined where no worker answered. */
export async function readInWorkers(
  projectDir: string,
  context: FormatContext,
  tasks: readonly UsageTask[],
): Promise<Array<SnapshotUsage | null | undefined>> {
  const results: Array<SnapshotUsage | null | undefined> = new Array(tasks.length);
  const count = Math.min(Math.max(1, availableParallelism()), 4, Math.ceil(tasks.length / WORKERS_FROM));
  // Found by its name, not next to this module's own file, which the build moves into a chunk.
  const url = pathToFileURL(programModulePath(WORKER_MODULE));
  const env = Object.fromEntries(Object.entries(context.env).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  let next = 0;
  const serve = (worker: Worker) =>
    new Promise<void>((resolve) => {
      // A few snapshots per message: a message each would cost more than a small transcript's reading.
      const send = () => {
        if (next >= tasks.length) return resolve();
        const batch = [];
        for (; batch.length < BATCH && next < tasks.length; next += 1) batch.push({ index: next, ...tasks[next]! });
        worker.postMessage(batch);
      };
      // Each answer as one string: cloning a string costs far less than cloning hundreds of small arrays.
      worker.on('message', (answers: Array<{ index: number; json?: string | null; failed?: string }>) => {
        for (const answer of answers)
          if (answer.failed === undefined)
            results[answer.index] = typeof answer.json === 'string' ? (JSON.parse(answer.json) as SnapshotUsage) : null;
        send();
      });
      // Whatever it was working on is left undefined: the caller reads it.
      worker.on('error', () => resolve());
      worker.on('exit', () => resolve());
      send();
    });
  const workers = Array.from({ length: count }, () => new Worker(url, { workerData: { projectDir, context: { ...context, env } } }));
  try {
    await Promise.all(workers.map(serve));
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate().catch(() => undefined)));
  }
  return results;
}
