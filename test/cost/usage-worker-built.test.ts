// stats --cost reads first-time transcripts in worker threads started by the
// worker module's path; when that file is missing the caller reads everything
// itself, correctly but on one core (the cold run took twice as long), so the
// built file is checked here: it exists, loads, and answers a batch.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PACKAGE_ROOT } from '../../src/core/package-root.js';
import { WORKER_MODULE } from '../../src/cost/usage-workers.js';
import { cleanEnv, cleanup, tempDir } from '../helpers/cli.js';

test.after(cleanup);

test('the build holds the usage worker, and the built worker answers a batch', async () => {
  const built = join(PACKAGE_ROOT, 'dist', `${WORKER_MODULE}.js`);
  assert.ok(existsSync(built), `${built} is missing: scripts/build.mjs must list src/${WORKER_MODULE}.ts among its entries`);
  const projectDir = tempDir('tracer-usage-worker-');
  const worker = new Worker(pathToFileURL(built), {
    workerData: { projectDir, context: { home: tempDir('tracer-usage-home-'), cwd: projectDir, env: cleanEnv() } },
  });
  try {
    const answer = await new Promise<unknown>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the worker exited (${code}) before it answered`)));
      // A snapshot whose bytes are not in this project: the worker answers null for it.
      worker.postMessage([{ index: 7, sha: '0'.repeat(64), agent: null }]);
    });
    assert.equal(answer, [{ index: 7, json: null }]);
  } finally {
    await worker.terminate();
  }
});

test.run();
