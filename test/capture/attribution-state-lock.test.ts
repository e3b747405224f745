// attribution-state.json is read, changed and written back by every commit's
// hook and by reconcile: writers running at once must each keep the others'
// commits (a commit whose claims are dropped gives its agent lines away to the
// next commit that has the same text).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ATTRIBUTION_STATE_LOCK, readAttributionState } from '../../src/capture/ledger/attribution-state.js';
import { tempDir } from '../helpers/cli.js';

const WORKER = join(import.meta.dirname, 'record-commits-worker.ts');

function writer(projectDir: string, name: string, count: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WORKER, projectDir, name, String(count)], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`writer ${name} exited ${code}: ${stderr}`))));
  });
}

test('four processes recording commits at once lose none of them, and leave no lock behind', async () => {
  const projectDir = join(tempDir('tracer-state-'), 'project');
  const names = ['a', 'b', 'c', 'd'];
  await Promise.all(names.map((name) => writer(projectDir, name, 15)));
  const state = await readAttributionState(projectDir);
  const expected = names.flatMap((name) => Array.from({ length: 15 }, (_, index) => `${name}-${index}`)).sort();
  assert.equal(Object.keys(state.commits).sort(), expected);
  assert.not.ok(existsSync(join(projectDir, ATTRIBUTION_STATE_LOCK)));
});

test.run();
