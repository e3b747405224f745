// Workload 15: local search (issue 32) over workload 17's history: 10,000
// conversations and about 2 GB of Claude Code transcripts at full size (one
// commit each, whose subject is indexed too). Measured as the built CLI runs it:
//   - the index built from nothing (`tracer search --reindex`): MB/s of transcripts read, peak RSS;
//   - a query once it is built (`tracer search <q>`, process start included): wall time, peak RSS;
//   - one new snapshot folded into the store, then the index brought level with it
//     (syncIndex, in this process: the update itself, without a process start).
// Hits are checked: a word of every prompt finds conversations, and the new one is found.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, cleanEnv } from '../../test/helpers/cli.js';
import { syncIndex, INDEX_FILE } from '../../src/search/local-index.js';
import { parseQuery, toFts5 } from '../../src/search/query.js';
import { runQuery } from '../../src/search/search.js';
import { cachedDataset, seededRandom } from '../dataset.js';
import { DATA_DIR } from '../environment.js';
import { expectOk, measure, median, mib, round } from '../measure.js';
import type { Result } from '../report.js';
import { claudeTranscript, writeCostDataset, type CostDatasetSize } from './cost-dataset.js';

const QUERIES = ['validate', '"reading the handler"', 'handl*', 'validate NOT zebra', 'step OR handler'];

export async function searchWorkload(options: { size: CostDatasetSize; runs: number }, log: (line: string) => void): Promise<Result[]> {
  const datasetDir = join(DATA_DIR, `cost-${options.size.conversations}-${options.size.transcriptBytes}`);
  const dataset = await cachedDataset(datasetDir, options.size, (dir) => writeCostDataset(dir, options.size, log));
  const env = { ...cleanEnv(), TRACER_HOME: dataset.home, NO_COLOR: '1' };
  const spec = (args: string[]) => ({ command: process.execPath, args: [BIN, ...args], cwd: dataset.repo, env });
  const indexPath = join(dataset.projectDir, INDEX_FILE);
  const removeIndex = () => {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${indexPath}${suffix}`, { force: true });
  };
  const mb = dataset.transcriptBytes / 1e6;

  const build: number[] = [];
  const buildRss: number[] = [];
  const buildCpu: number[] = [];
  const queryCpu: number[] = [];
  for (let run = 0; run < options.runs; run += 1) {
    removeIndex();
    const result = expectOk(await measure(spec(['search', '--reindex']), { memory: true }), 'tracer search --reindex');
    if (!result.stdout.includes(`Indexed ${dataset.conversations.toLocaleString('en-US').replaceAll(',', '')} conversations`))
      throw new Error(`the index holds other than ${dataset.conversations} conversations: ${result.stdout}`);
    build.push(result.wallMs);
    if (result.maxRssKb) buildRss.push(result.maxRssKb);
    if (result.cpuMs !== undefined) buildCpu.push(result.cpuMs);
    log(`  build ${round(result.wallMs)} ms, ${round(mb / (result.wallMs / 1000), 1)} MB/s, ${mib(result.maxRssKb)} MiB`);
  }

  const query: number[] = [];
  const queryRss: number[] = [];
  for (let round_ = 0; round_ < 3; round_ += 1)
    for (const text of QUERIES) {
      const result = expectOk(await measure(spec(['search', text, '--json', '--limit', '20']), { memory: true }), `tracer search ${text}`);
      const hits = (JSON.parse(result.stdout) as { hits: unknown[] }).hits.length;
      if (hits === 0) throw new Error(`tracer search ${text} found nothing`);
      query.push(result.wallMs);
      if (result.maxRssKb) queryRss.push(result.maxRssKb);
      if (result.cpuMs !== undefined) queryCpu.push(result.cpuMs);
    }
  // What the process start alone costs, for reading the query figure.
  const startup: number[] = [];
  const startupCpu: number[] = [];
  for (let run = 0; run < 5; run += 1) {
    const result = expectOk(await measure(spec(['--version']), { memory: true }), 'tracer --version');
    startup.push(result.wallMs);
    if (result.cpuMs !== undefined) startupCpu.push(result.cpuMs);
  }
  // The same queries in this process: the index's own answer (brought level with the store, then asked), without a process start.
  const answer: number[] = [];
  for (let round_ = 0; round_ < 3; round_ += 1)
    for (const text of QUERIES) {
      const started = process.hrtime.bigint();
      const { db } = await syncIndex({ projectDir: dataset.projectDir, git: { cwd: dataset.repo, env } });
      try {
        if (runQuery(db, toFts5(parseQuery(text)), 'bench', { limit: 20 }).length === 0) throw new Error(`${text} found nothing`);
      } finally {
        db.close();
      }
      answer.push(Number(process.hrtime.bigint() - started) / 1e6);
    }

  // One snapshot as a fold leaves it: the bytes, the index entry, the row; then the index brought level.
  const update: number[] = [];
  const updateCpu: number[] = [];
  const random = seededRandom(99);
  // The data set is shared with workload 17 and kept between runs: what this adds is taken out again.
  const indexFile = join(dataset.projectDir, 'conversations', '_index.json');
  const rowsFile = join(dataset.projectDir, 'conversations.jsonl');
  const saved = { index: readFileSync(indexFile), rows: readFileSync(rowsFile) };
  const added: string[] = [];
  try {
    for (let run = 0; run < 5; run += 1) {
      const id = `bench-new-${run}-${Date.now().toString(16)}`;
      const { bytes } = claudeTranscript(
        id,
        Math.round(dataset.transcriptBytes / dataset.conversations),
        'claude-sonnet-4-5-20250929',
        Date.UTC(2026, 0, 1),
        random,
      );
      const marked = Buffer.concat([
        bytes,
        Buffer.from(`${JSON.stringify({ type: 'user', sessionId: id, message: { role: 'user', content: `kumquat${run} zeppelin` } })}\n`),
      ]);
      const sha = createHash('sha256').update(marked).digest('hex');
      mkdirSync(join(dataset.projectDir, 'conversations', sha.slice(0, 2)), { recursive: true });
      writeFileSync(join(dataset.projectDir, 'conversations', sha.slice(0, 2), sha), marked);
      added.push(join(dataset.projectDir, 'conversations', sha.slice(0, 2), sha));
      writeFileSync(indexFile, JSON.stringify({ ...(JSON.parse(readFileSync(indexFile, 'utf8')) as object), [id]: sha }));
      appendFileSync(
        join(dataset.projectDir, 'conversations.jsonl'),
        `${JSON.stringify({ conversation_id: id, content_sha256: sha, size: marked.length, ts: new Date().toISOString() })}\n`,
      );
      const started = process.hrtime.bigint();
      const cpuBefore = process.cpuUsage();
      const { db, report } = await syncIndex({ projectDir: dataset.projectDir, git: { cwd: dataset.repo, env } });
      update.push(Number(process.hrtime.bigint() - started) / 1e6);
      const spent = process.cpuUsage(cpuBefore);
      updateCpu.push((spent.user + spent.system) / 1000);
      const found = db.prepare('SELECT count(*) AS n FROM docs WHERE docs MATCH ?').get(`"kumquat${run}"`) as { n: number };
      db.close();
      if (report.indexed !== 1 || found.n !== 1)
        throw new Error(`the new snapshot was not indexed (${report.indexed} read, ${found.n} found)`);
    }
  } finally {
    writeFileSync(indexFile, saved.index);
    writeFileSync(rowsFile, saved.rows);
    for (const path of added) rmSync(path, { force: true });
    removeIndex();
  }

  const cpu = (values: number[]) => (values.length === 0 ? 'n/a' : `${round(median(values))} ms`);
  const size = `${dataset.conversations.toLocaleString('en-US')} conversations, ${round(dataset.transcriptBytes / 2 ** 30, 2)} GiB of transcripts, ${dataset.commits.toLocaleString('en-US')} commits`;
  const buildMs = median(build);
  const rate = mb / (buildMs / 1000);
  const queryMs = median(query);
  const updateMs = median(update);
  const peak = Math.max(...buildRss, ...queryRss);
  log(
    `  query ${query.map((ms) => round(ms)).join(' / ')} ms; start-up ${round(median(startup))} ms; update ${update.map((ms) => round(ms)).join(' / ')} ms`,
  );
  return [
    {
      workload: '15. search: index built from the store (tracer search --reindex)',
      size,
      tracerMs: round(buildMs),
      peakRssMb: mib(Math.max(...buildRss)),
      bar: '≥ 50 MB/s, < 200 MB',
      pass: rate >= 50 && (buildRss.length === 0 || Math.max(...buildRss) < 200 * 1024),
      notes: `${round(rate, 1)} MB/s of transcripts (commit subjects read from git included); CPU ${cpu(buildCpu)}`,
      samples: { tracer: build, rssKb: buildRss, cpuMs: buildCpu },
    },
    {
      workload: '15. search: a query on the built index (tracer search, process start included)',
      size,
      tracerMs: round(queryMs),
      baselineMs: round(median(startup)),
      baselineLabel: 'tracer --version (process start)',
      ratio: round(queryMs / median(startup)),
      peakRssMb: mib(Math.max(...queryRss)),
      bar: '≤ 200 ms, < 200 MB',
      pass: queryMs <= 200 && (queryRss.length === 0 || Math.max(...queryRss) < 200 * 1024),
      notes: `${QUERIES.length} queries × 3: ${QUERIES.join(', ')}; CPU ${cpu(queryCpu)} (process start alone: ${cpu(startupCpu)}); the index's own answer, in process: ${round(median(answer))} ms`,
      samples: { tracer: query, baseline: startup, rssKb: queryRss, cpuMs: queryCpu, baselineCpuMs: startupCpu, inProcessMs: answer },
    },
    {
      workload: '15. search: index brought level after one folded snapshot',
      size,
      tracerMs: round(updateMs),
      bar: '≤ 50 ms',
      pass: updateMs <= 50,
      notes: `a ${round(dataset.transcriptBytes / dataset.conversations / 1e3)} KB transcript read and indexed; CPU ${cpu(updateCpu)}; peak RSS of the whole workload ${mib(peak)} MiB`,
      samples: { tracer: update, cpuMs: updateCpu },
    },
  ];
}
