// Workload 8: `tracer blame` on a file of 3,000 lines reworked by 300 commits,
// every commit attributed by the real ledger code (half of them an agent's,
// through trace rows as the hooks write them). Measured side by side with
// `git blame --porcelain` on the same file and `tracer --version`, alternating;
// the bar is tracer ≤ --version + 1.5 × git blame. `tracer stats` over the
// same 300 commits is measured too (no bar: it shows the cost of one git log
// and one pass over the ledgers).
import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { linkCommit } from '../../src/capture/ledger/link-commit.js';
import { traceRow } from '../../test/capture/ledger-helpers.js';
import { cleanEnv } from '../../test/helpers/cli.js';
import { cachedDataset, seededRandom } from '../dataset.js';
import { clientHome, DATA_DIR, runFolder, seedProject } from '../environment.js';
import { expectOk, measure, median, round } from '../measure.js';
import type { Result } from '../report.js';

export interface BlameSize {
  lines: number;
  commits: number;
}

const FILE = 'src/big.ts';
const AGENTS = [
  { agent: 'claude-code', model: 'claude-sonnet-4-5' },
  { agent: 'cursor', model: 'gpt-5' },
  { agent: 'codex', model: 'gpt-5-codex' },
];

export async function blameWorkload(options: { size: BlameSize; runs: number }, log: (line: string) => void): Promise<Result[]> {
  const datasetDir = join(DATA_DIR, `blame-${options.size.lines}-${options.size.commits}`);
  await cachedDataset(datasetDir, options.size, (dir) => buildHistory(dir, options.size, log));
  const dir = runFolder('blame');
  const repo = join(dir, 'repo');
  cpSync(join(datasetDir, 'repo'), repo, { recursive: true });
  const client = await clientHome(dir, undefined, repo);
  seedProject(client.projectDir, join(datasetDir, 'project'));

  const blame = client.spec(['blame', FILE]);
  const git = { command: 'git', args: ['blame', '--porcelain', '--', FILE], cwd: repo, env: cleanEnv() };
  const version = client.spec(['--version']);
  const stats = client.spec(['stats', 'HEAD', '--json']);
  const samples = { tracer: [] as number[], git: [] as number[], version: [] as number[], stats: [] as number[] };
  // One warm-up each: the first run pays for cold file caches.
  for (const spec of [blame, git, version, stats]) await measure(spec);
  for (let run = 0; run < options.runs; run += 1) {
    const order = run % 2 === 0 ? ([blame, git, version] as const) : ([version, git, blame] as const);
    for (const spec of order) {
      const result = expectOk(await measure(spec), spec === blame ? 'tracer blame' : spec === git ? 'git blame' : 'tracer --version');
      (spec === blame ? samples.tracer : spec === git ? samples.git : samples.version).push(result.wallMs);
      if (spec === blame && result.stdout.split('\n').length - 1 !== options.size.lines)
        throw new Error(`tracer blame printed ${result.stdout.split('\n').length - 1} lines, not ${options.size.lines}`);
    }
    samples.stats.push(expectOk(await measure(stats), 'tracer stats').wallMs);
  }
  const [tracerMs, gitMs, versionMs, statsMs] = [samples.tracer, samples.git, samples.version, samples.stats].map(median) as [
    number,
    number,
    number,
    number,
  ];
  const allowed = versionMs + 1.5 * gitMs;
  log(
    `  tracer blame ${round(tracerMs)} ms, git blame --porcelain ${round(gitMs)} ms, --version ${round(versionMs)} ms, stats ${round(statsMs)} ms over ${options.runs} runs`,
  );
  const size = `${options.size.lines} lines, ${options.size.commits} commits with ledgers`;
  return [
    {
      workload: '8. blame',
      size,
      tracerMs: round(tracerMs),
      baselineMs: round(gitMs),
      baselineLabel: 'git blame --porcelain',
      ratio: round(tracerMs / allowed),
      bar: '≤ --version + 1.5× git blame',
      pass: tracerMs <= allowed,
      notes: `tracer --version ${round(versionMs)} ms, so the bar is ${round(allowed)} ms; the ratio is to that bar`,
      samples,
    },
    {
      workload: '8. stats',
      size,
      tracerMs: round(statsMs),
      bar: 'one git log, one pass over ledgers.jsonl',
      pass: true,
    },
  ];
}

/**
 * The repository and the project files (traces.jsonl, ledgers.jsonl, ...),
 * built once: each commit replaces a few lines, inserts some and deletes
 * some, so that blame has to follow lines that moved.
 */
async function buildHistory(dir: string, size: BlameSize, log: (line: string) => void): Promise<{ commits: number }> {
  log(`  building a ${size.lines}-line file reworked by ${size.commits} commits (once)`);
  const repo = join(dir, 'repo');
  const projectDir = join(dir, 'project');
  mkdirSync(join(repo, 'src'), { recursive: true });
  mkdirSync(projectDir, { recursive: true });
  const random = seededRandom(8);
  let clock = Date.parse('2025-01-01T00:00:00Z');
  const env = { ...cleanEnv(), GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'bench@example.com' };
  const git = (args: string[], extra: Record<string, string> = {}) =>
    execFileSync('git', args, {
      cwd: repo,
      env: { ...env, ...extra, GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'bench@example.com' },
    });
  git(['init', '-q', '-b', 'main']);
  let serial = 0;
  const fresh = (commit: number) => `export const value${(serial += 1)} = ${commit} * ${Math.floor(random() * 1e6)};`;
  const file = Array.from({ length: size.lines }, () => fresh(0));
  for (let commit = 0; commit < size.commits; commit += 1) {
    const written: string[] = [];
    if (commit > 0) {
      for (let change = 0; change < 12; change += 1) {
        const at = Math.floor(random() * file.length);
        const line = fresh(commit);
        file[at] = line;
        written.push(line);
      }
      for (let move = 0; move < 3; move += 1) {
        file.splice(Math.floor(random() * file.length), 1);
        const line = fresh(commit);
        file.splice(Math.floor(random() * file.length), 0, line);
        written.push(line);
      }
    } else written.push(...file);
    writeFileSync(join(repo, FILE), `${file.join('\n')}\n`);
    const agent = commit % 2 === 1 ? AGENTS[Math.floor(commit / 2) % AGENTS.length]! : undefined;
    if (agent) {
      const row = traceRow({ agent: agent.agent, model: agent.model, conversation: `session-${commit % 7}`, files: { [FILE]: written } });
      appendFileSync(join(projectDir, 'traces.jsonl'), `${JSON.stringify(row)}\n`);
    }
    clock += 60_000;
    const date = new Date(clock).toISOString();
    git(['add', '-A']);
    git(['commit', '-q', '-m', `change ${commit}`], { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date });
    await linkCommit({ projectDir, git: { cwd: repo, env }, rev: 'HEAD' });
  }
  return { commits: size.commits };
}
