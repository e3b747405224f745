import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_DIR, clearRuns, stopAllServices } from './environment.js';
import { markdownTable, runInfo, saveResults, type Result } from './report.js';
import { syncWorkloads } from './workloads/sync.js';

/**
 * `npm run bench [-- --quick] [-- --only 1,2,3]`: builds the data sets once
 * (under .tracer-bench/data), runs each workload against its baseline, prints
 * the table for BENCHMARKS.md and keeps the raw figures in .tracer-bench/results/.
 */
const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false }, only: { type: 'string' }, keep: { type: 'boolean', default: false } } });
const quick = values.quick!;
const only = values.only ? new Set(values.only.split(',').map((part) => part.trim())) : undefined;
const wanted = (n: string) => !only || only.has(n);
const log = (line: string) => process.stderr.write(`${line}\n`);

const info = runInfo(quick ? 'quick' : 'full');
log(`tracer bench (${info.mode}), ${info.cores} cores, load ${info.loadBefore.join(' ')}`);
const results: Result[] = [];
try {
  if (wanted('1') || wanted('2') || wanted('3')) {
    log('workloads 1-3: push, no-op push, pull');
    results.push(...(await syncWorkloads(quick ? { size: { traces: 10_000, ledgers: 200, commitLinks: 200 }, runs: 2, noopRuns: 3 } : { size: { traces: 100_000, ledgers: 2_000, commitLinks: 2_000 }, runs: 3, noopRuns: 5 }, log)));
  }
} finally {
  await stopAllServices();
  if (!values.keep) clearRuns();
}
const file = join(BENCH_DIR, 'results', `${info.startedAt.replace(/[:.]/g, '-')}-${info.mode}.json`);
saveResults(file, info, results);
process.stdout.write(`${markdownTable(results)}\n\nload before ${info.loadBefore.join(' ')}; raw figures in ${file}\n`);
process.exitCode = results.every((result) => result.pass) ? 0 : 1;
