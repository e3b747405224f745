// `npm run bench [-- --quick] [-- --only 1,2,3] [-- --backends sqlite,postgres]`: builds the data sets once
// (under .tracer-bench/data), runs each workload against its baseline, prints
// the table for BENCHMARKS.md and keeps the raw figures in .tracer-bench/results/.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_DIR, clearRuns, stopAllServices } from './environment.js';
import { markdownTable, runInfo, saveResults, type Result } from './report.js';
import { commitWorkload, deadFoldWorkload } from './workloads/background.js';
import { blameWorkload } from './workloads/blame.js';
import { forgetWorkload, retentionWorkload } from './workloads/forget.js';
import { costWorkload } from './workloads/cost.js';
import { conversationWorkload } from './workloads/conversations.js';
import { hookWorkload } from './workloads/hook.js';
import { largeFileWorkload } from './workloads/large.js';
import { loadWorkload } from './workloads/load.js';
import { reconcileWorkload } from './workloads/reconcile.js';
import { searchWorkload } from './workloads/search.js';
import { redactionWorkload } from './workloads/redaction.js';
import { startupWorkload } from './workloads/startup.js';
import { syncDataset, syncWorkloads } from './workloads/sync.js';
import { teamCostWorkload } from './workloads/team-cost.js';
import { teamSearchWorkload } from './workloads/team-search.js';
import { teamViewWorkload } from './workloads/team-view.js';
import { transcriptWorkload } from './workloads/transcripts.js';
import { viewerWorkload } from './workloads/viewer.js';
import { postgresAvailable } from '../test/helpers/service.js';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    keep: { type: 'boolean', default: false },
    runs: { type: 'string' },
    backends: { type: 'string' },
  },
});
/** `--runs N` overrides how many times each workload runs (medians are taken over them). */
const runs = (quickRuns: number, fullRuns: number) => (values.runs ? Number(values.runs) : quick ? quickRuns : fullRuns);
const quick = values.quick!;
const only = values.only ? new Set(values.only.split(',').map((part) => part.trim())) : undefined;
const wanted = (n: string) => !only || only.has(n);
/** `--backends sqlite,postgres`: the service backends workloads 10 and 18 run on (default every reachable one). */
const chosenBackends = values.backends ? new Set(values.backends.split(',').map((part) => part.trim())) : undefined;
const log = (line: string) => process.stderr.write(`${line}\n`);

const syncSize = quick ? { traces: 10_000, ledgers: 200, commitLinks: 200 } : { traces: 100_000, ledgers: 2_000, commitLinks: 2_000 };
/** The team view's data set (workloads 10 and 18). */
const teamSize = quick
  ? { traces: 20_000, sessions: 500, transcriptBytes: 2 ** 20 }
  : { traces: 200_000, sessions: 5_000, transcriptBytes: 8 * 2 ** 20 };
/** The service backends to run on: every reachable one, or those --backends names. */
async function serviceBackends(): Promise<Array<'sqlite' | 'postgres'>> {
  const reachable: Array<'sqlite' | 'postgres'> = (await postgresAvailable()) ? ['sqlite', 'postgres'] : ['sqlite'];
  if (reachable.length === 1) log('  PostgreSQL is not reachable (TRACER_TEST_POSTGRES_URL): SQLite only');
  return reachable.filter((backend) => !chosenBackends || chosenBackends.has(backend));
}
const info = runInfo(quick ? 'quick' : 'full');
log(`tracer bench (${info.mode}), ${info.cores} cores, load ${info.loadBefore.join(' ')}`);
const results: Result[] = [];
try {
  if (wanted('1') || wanted('2') || wanted('3')) {
    log('workloads 1-3: push, no-op push, pull');
    results.push(...(await syncWorkloads({ size: syncSize, runs: runs(2, 5), noopRuns: quick ? 3 : 5 }, log)));
  }
  if (wanted('4')) {
    log('workload 4: conversations');
    const size = quick
      ? { count: 20, minBytes: 10_000, maxBytes: 2_000_000, totalBytes: 20_000_000 }
      : { count: 200, minBytes: 10_000, maxBytes: 8_000_000, totalBytes: 300_000_000 };
    results.push(...(await conversationWorkload({ size, runs: runs(1, 3) }, log)));
  }
  if (wanted('5')) {
    log('workload 5: hook latency');
    results.push(...(await hookWorkload({ runs: runs(9, 21) }, log)));
  }
  if (wanted('6')) {
    log('workload 6: large traces.jsonl');
    results.push(...(await largeFileWorkload({ bytes: quick ? 100 * 2 ** 20 : 2 ** 30, runs: runs(1, 2) }, log)));
  }
  if (wanted('7')) {
    log('workload 7: service under load');
    const backends: Array<'sqlite' | 'postgres'> = (await postgresAvailable()) ? ['sqlite', 'postgres'] : ['sqlite'];
    if (backends.length === 1) log('  PostgreSQL is not reachable (TRACER_TEST_POSTGRES_URL): SQLite only');
    const tracesFile = join((await syncDataset(syncSize)).dir, 'traces.jsonl');
    results.push(
      ...(await loadWorkload(
        quick ? { tracesFile, pool: 4_000, clients: 20, window: 1_000 } : { tracesFile, pool: 20_000, clients: 20, window: 5_000 },
        backends,
        log,
      )),
    );
  }
  if (wanted('8')) {
    log('workload 8: blame and stats');
    const size = quick ? { lines: 1_000, commits: 60 } : { lines: 3_000, commits: 300 };
    results.push(...(await blameWorkload({ size, runs: runs(3, 11) }, log)));
  }
  if (wanted('9')) {
    log('workload 9: the viewer');
    const size = quick
      ? { traces: 10_000, sessions: 200, transcriptBytes: 8 * 2 ** 20 }
      : { traces: 100_000, sessions: 2_000, transcriptBytes: 8 * 2 ** 20 };
    results.push(...(await viewerWorkload({ size, runs: runs(1, 3) }, log)));
  }
  if (wanted('10')) {
    log('workload 10: the team view of tracer serve');
    results.push(...(await teamViewWorkload({ size: teamSize, runs: runs(3, 5), backends: await serviceBackends() }, log)));
  }
  if (wanted('16')) {
    log("workload 16: the team view's search");
    const size = quick
      ? { traces: 20_000, sessions: 1_000, transcriptBytes: 2 ** 20 }
      : { traces: 200_000, sessions: 10_000, transcriptBytes: 8 * 2 ** 20 };
    results.push(
      ...(await teamSearchWorkload(
        { size, transcriptBytes: quick ? 8_000 : 24_000, runs: runs(3, 5), backends: await serviceBackends() },
        log,
      )),
    );
  }
  if (wanted('11')) {
    log('workload 11: reconcile and the post-merge hook');
    results.push(...(await reconcileWorkload({ commits: 50, pullCommits: 10, runs: runs(3, 7) }, log)));
  }
  // 12 runs all three parts; 12a (capture), 12b (push), 12c (corpus) one each.
  const redactionParts = (['12a', '12b', '12c'] as const).filter((part) => wanted('12') || wanted(part));
  if (redactionParts.length > 0) {
    log('workload 12: redaction (capture, push, corpus)');
    const options = quick
      ? { transcriptBytes: 8 * 2 ** 20, traces: 10_000, runs: runs(3, 7) }
      : { transcriptBytes: 8 * 2 ** 20, traces: 50_000, runs: runs(3, 7) };
    results.push(...(await redactionWorkload({ ...options, parts: redactionParts }, log)));
  }
  if (wanted('13')) {
    log('workload 13: start-up');
    results.push(...(await startupWorkload({ runs: runs(9, 21) }, log)));
  }
  if (wanted('14')) {
    log('workload 14: forget one conversation locally');
    results.push(...(await forgetWorkload({ traces: quick ? 20_000 : 200_000, runs: runs(2, 5) }, log)));
  }
  if (wanted('15')) {
    log('workload 15: local search (index build, query, incremental update)');
    const size = quick
      ? { conversations: 1_000, transcriptBytes: 200 * 2 ** 20, files: 40 }
      : { conversations: 10_000, transcriptBytes: 2 * 2 ** 30, files: 200 };
    results.push(...(await searchWorkload({ size, runs: runs(1, 2) }, log)));
  }
  if (wanted('19')) {
    if (await postgresAvailable()) {
      log('workload 19: retention on PostgreSQL with uploads meanwhile');
      results.push(...(await retentionWorkload({ conversations: quick ? 10_000 : 100_000 }, log)));
    } else log('workload 19: PostgreSQL is not reachable (TRACER_TEST_POSTGRES_URL): skipped');
  }
  if (wanted('17')) {
    log('workload 17: tracer stats --cost');
    const size = quick
      ? { conversations: 1_000, transcriptBytes: 200 * 2 ** 20, files: 40 }
      : { conversations: 10_000, transcriptBytes: 2 * 2 ** 30, files: 200 };
    results.push(...(await costWorkload({ size, runs: runs(1, 3) }, log)));
  }
  if (wanted('18')) {
    log("workload 18: the team view's cost section");
    results.push(...(await teamCostWorkload({ size: teamSize, runs: runs(3, 5), backends: await serviceBackends() }, log)));
  }
  if (wanted('20')) {
    log('workload 20: transcript reader');
    results.push(...(await transcriptWorkload({ megabytes: quick ? 20 : 100, runs: runs(1, 3) }, log)));
  }
  if (wanted('21')) {
    log("workload 21: git commit with tracer's hooks");
    results.push(...(await commitWorkload({ runs: runs(9, 21) }, log)));
  }
  if (wanted('22')) {
    log('workload 22: tracer status after a fold SIGKILLed holding the lock');
    results.push(...(await deadFoldWorkload({ runs: runs(5, 11), events: 40 }, log)));
  }
} finally {
  await stopAllServices();
  if (!values.keep) clearRuns();
}
const file = join(BENCH_DIR, 'results', `${info.startedAt.replace(/[:.]/g, '-')}-${info.mode}.json`);
saveResults(file, info, results);
process.stdout.write(`${markdownTable(results)}\n\nload before ${info.loadBefore.join(' ')}; raw figures in ${file}\n`);
process.exitCode = results.every((result) => result.pass) ? 0 : 1;
