// `npm test`: test files in uvu processes of their own, several at once (quick files
// share one, see batches()). The files are
// independent (each makes its own temporary homes, repositories, services on port 0 and
// PostgreSQL schemas, test/helpers/), and most of their time is spent waiting on child
// processes, fsync and sockets, so running them side by side uses the idle core time one
// uvu process leaves (BENCHMARKS.md, "Test suite").
//
// Usage: node scripts/run-tests.mjs [dir] [pattern]  (uvu's own arguments; default: test "\.test\.ts$")
// TRACER_TEST_JOBS sets how many processes run at once (default: cores + 2).
// TRACER_TEST_FILE_TIMEOUT_MS kills a process that runs longer (default 15 minutes).
//
// Output: one line per passing file, the whole uvu output of a failing one, then a summary
// in uvu's words (Total excludes skipped tests) preceded by a `Files:` line, which .ci/run
// reads. A file that crashes, hangs or exits non-zero without a failing test counts as one
// failed test more than it reported: a file can never pass by not finishing.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'uvu/parse';

const root = fileURLToPath(new URL('..', import.meta.url));
const [dir = 'test', pattern = '\\.test\\.ts$'] = process.argv.slice(2);
const jobs = positive(process.env.TRACER_TEST_JOBS) ?? availableParallelism() + 2;
const fileTimeoutMs = positive(process.env.TRACER_TEST_FILE_TIMEOUT_MS) ?? 15 * 60_000;
// Durations of the last run: the longest files start first, so the run does not end waiting on one.
// A fresh clone has none yet and falls back on test/durations.json (seconds, from a full run on the
// 2-core machine): the order, and which quick files share a process, come from it.
const timesDir = join(root, '.tracer-test');
const timesPath = join(timesDir, 'times.json');
const seedPath = join(root, 'test', 'durations.json');
const QUICK_MS = 30_000;
const BATCH_MS = 60_000;

const { suites } = await parse(dir, pattern, { cwd: root });
if (suites.length === 0) {
  process.stderr.write(`No test file under ${dir} matches ${pattern}.\n`);
  process.exit(1);
}
const previous = readTimes();
const seed = dir === 'test' ? readJson(seedPath) : {};
// A file with no time yet (new since the seed was written) is taken for a quick one: alone, it would cost a uvu
// process of its own (~0.5-0.8 s of CPU) for a file that most likely takes seconds; the next run knows its time.
const UNKNOWN_MS = 10_000;
const expected = (name) => previous[name] ?? (seed[name] === undefined ? UNKNOWN_MS : seed[name] * 1000);
const queue = batches(suites).sort((a, b) => b.expected - a.expected);

const started = Date.now();
const running = new Set();
const results = [];
let interrupted = false;
const stop = () => {
  interrupted = true;
  for (const child of running) killGroup(child);
  process.exitCode = 130;
};
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, stop);
// Output piped into something that quit (| head): the files' process groups must not run on unwatched.
process.stdout.on('error', () => {
  stop();
  process.exit();
});

await Promise.all(Array.from({ length: Math.min(jobs, queue.length) }, worker));

const totals = results.reduce(
  (sum, result) => ({
    total: sum.total + result.total,
    passed: sum.passed + result.passed,
    skipped: sum.skipped + result.skipped,
    failedFiles: sum.failedFiles + (result.ok ? 0 : 1),
  }),
  { total: 0, passed: 0, skipped: 0, failedFiles: 0 },
);
const notRun = queue.reduce((files, batch) => files + batch.names.length, 0);
if (!interrupted) writeTimes();
const slowest = [...results].sort((a, b) => b.ms - a.ms).slice(0, 8);
process.stdout.write(`\n  Slowest:   ${slowest.map((result) => `${result.name} ${seconds(result.ms)}`).join(', ')}\n`);
process.stdout.write(
  `\n  Files:     ${suites.length} in ${results.length + queue.length} processes (${totals.failedFiles} failed${notRun ? `, ${notRun} files not run` : ''}, ${jobs} at once)`,
);
process.stdout.write(`\n  Total:     ${totals.total + notRun}`);
process.stdout.write(`\n  Passed:    ${totals.passed}`);
process.stdout.write(`\n  Skipped:   ${totals.skipped}`);
process.stdout.write(`\n  Duration:  ${seconds(Date.now() - started)}\n\n`);
process.exitCode = totals.failedFiles || notRun ? 1 : (process.exitCode ?? 0);

/**
 * Quick files (and files with no time yet, taken for quick ones) share one uvu process, a
 * batch of about BATCH_MS: starting node with tsx and uvu costs ~0.5-0.8 s of CPU per
 * process, a tenth of the whole suite's CPU when every small file pays it (BENCHMARKS.md,
 * "Test suite"). Long files keep a process of their own.
 */
function batches(found) {
  const alone = [];
  const quick = [];
  for (const suite of found) (expected(suite.name) < QUICK_MS ? quick : alone).push(suite);
  const groups = alone.map((suite) => ({ names: [suite.name], expected: expected(suite.name) }));
  let current;
  for (const suite of quick.sort((a, b) => expected(b.name) - expected(a.name))) {
    if (!current || current.expected + expected(suite.name) > BATCH_MS) groups.push((current = { names: [], expected: 0 }));
    current.names.push(suite.name);
    current.expected += expected(suite.name);
  }
  return groups;
}

async function worker() {
  for (let suite = queue.shift(); suite && !interrupted; suite = queue.shift()) {
    const result = await runFile(suite);
    results.push(result);
    report(result);
  }
}

/** One file, or a batch of quick ones, in its own uvu process (and process group, so a timeout takes its children too). */
function runFile(batch) {
  const args = ['--import', 'tsx', join(root, 'node_modules/uvu/bin.js'), dir, `^(?:${batch.names.map(escapeRegExp).join('|')})$`];
  const begin = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    running.add(child);
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, fileTimeoutMs);
    const finish = (code, signal, error) => {
      clearTimeout(timer);
      running.delete(child);
      const text = Buffer.concat(output).toString('utf8') + (error ? `\n${error.stack}\n` : '');
      resolve({ ...summarize(nameOf(batch), text, { code, signal, timedOut, ms: Date.now() - begin }), batch });
    };
    child.on('error', (error) => finish(null, null, error));
    child.on('close', (code, signal) => finish(code, signal));
  });
}

/** uvu's own summary of the file, or one failure for a file that did not get to (or past) it. */
function summarize(name, text, { code, signal, timedOut, ms }) {
  // uvu colours its summary (FORCE_COLOR): the escape codes go before the counts are read.
  const plain = text.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '');
  const count = (label) => Number(new RegExp(`^\\s*${label}:\\s*(\\d+)`, 'm').exec(plain)?.[1] ?? NaN);
  let total = count('Total');
  let passed = count('Passed');
  const skipped = count('Skipped') || 0;
  const finished = Number.isFinite(total) && Number.isFinite(passed);
  let why;
  if (timedOut) why = `killed after ${seconds(fileTimeoutMs)} (TRACER_TEST_FILE_TIMEOUT_MS)`;
  else if (!finished) why = `ended (${signal ?? `exit code ${code}`}) before uvu's summary`;
  else if (code !== 0 && passed === total) why = `exited with ${signal ?? `code ${code}`} although every test passed`;
  if (!finished) {
    total = 0;
    passed = 0;
  }
  if (why) total = Math.max(total, passed) + 1;
  return { name, ok: !why && passed === total && code === 0, total, passed, skipped, ms, text, why };
}

function nameOf(batch) {
  return batch.names.length === 1 ? batch.names[0] : `${batch.names[0]} and ${batch.names.length - 1} more`;
}

function report(result) {
  if (result.ok) {
    const skipped = result.skipped ? `, ${result.skipped} skipped` : '';
    process.stdout.write(`✓ ${result.name}  ${result.passed} passed${skipped}  ${seconds(result.ms)}\n`);
    return;
  }
  process.stdout.write(`\n${result.text.replace(/\n*$/, '\n')}`);
  process.stdout.write(
    `✘ ${result.name}  ${result.total - result.passed} failed${result.why ? `: ${result.why}` : ''}  ${seconds(result.ms)}\n\n`,
  );
}

function killGroup(child) {
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

function readTimes() {
  return readJson(timesPath);
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return {};
  }
}

function writeTimes() {
  try {
    mkdirSync(timesDir, { recursive: true });
    // A batch's time is shared out in proportion to what its files were expected to take.
    const times = results.flatMap(({ batch, ms }) => {
      const sum = batch.names.reduce((total, name) => total + expected(name), 0);
      return batch.names.map((name) => [name, batch.names.length === 1 || sum === 0 ? ms : Math.round((ms * expected(name)) / sum)]);
    });
    writeFileSync(timesPath, JSON.stringify({ ...previous, ...Object.fromEntries(times) }));
  } catch {
    // Only the order of the next run depends on it.
  }
}

function positive(value) {
  const number = Number(value);
  return Number.isInteger(number) && number > 0 ? number : undefined;
}

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function seconds(ms) {
  return `${(ms / 1000).toFixed(1)}s`;
}
