// Workload 11 (issue 20): reconcile. A pull request of 50 commits (every other
// one an agent's, through trace rows as the hooks write them, each touching a
// few of 10 files) lands on main as the hosting service's squash, and as its
// rebase-merge; `tracer reconcile` maps it back, from a cold cache, each run
// starting from the state before (ledger rows, notes and cache restored, not
// timed). Bar: ≤ 2 s. Then the post-merge hook's cost: `git pull` of a
// 10-commit rebase-merge with the hook installed against the same pull with
// the hook taken away, alternating, the patch-id cache as a pull finds it:
// warm for the ledgered commits (a first pull after install pays once for
// those: the reconcile rows show that cold cost), cold for the commits that
// arrive; bar: ≤ 0.5 s added.
import { execFileSync } from 'node:child_process';
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { linkCommit } from '../../src/capture/ledger/link-commit.js';
import { traceRow } from '../../test/capture/ledger-helpers.js';
import { cleanEnv } from '../../test/helpers/cli.js';
import { seededRandom } from '../dataset.js';
import { clientHome, runFolder, type ClientHome } from '../environment.js';
import { expectOk, measure, median, round } from '../measure.js';
import type { Result } from '../report.js';

const FILES = 10;
const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
};

export async function reconcileWorkload(
  options: { commits: number; pullCommits: number; runs: number },
  log: (line: string) => void,
): Promise<Result[]> {
  const dir = runFolder('reconcile');
  const origin = join(dir, 'origin.git');
  const repo = join(dir, 'repo');
  mkdirSync(repo, { recursive: true });
  const env = { ...cleanEnv(), ...GIT_ENV };
  let clock = Date.parse('2025-06-01T00:00:00Z');
  const git = (cwd: string, args: string[], extra: Record<string, string> = {}) =>
    execFileSync('git', args, { cwd, env: { ...env, ...extra }, encoding: 'utf8' }).trim();
  const commit = (cwd: string, message: string) => {
    clock += 60_000;
    const date = new Date(clock).toISOString();
    git(cwd, ['add', '-A']);
    git(cwd, ['commit', '-q', '-m', message], { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date });
    return git(cwd, ['rev-parse', 'HEAD']);
  };
  git(dir, ['init', '-q', '--bare', '-b', 'main', origin]);
  git(repo, ['init', '-q', '-b', 'main']);
  const random = seededRandom(20);
  // Each request has its own ten files, so the three land without conflicts.
  const NAMES = ['squashed', 'rebased', 'pulled'];
  const trees = new Map(
    NAMES.map((name) => [
      name,
      Array.from({ length: FILES }, (_, file) => Array.from({ length: 120 }, (_, line) => `export const base${file}_${line} = ${line};`)),
    ]),
  );
  const write = (name: string) =>
    trees.get(name)!.forEach((lines, file) => writeFileSync(join(repo, `src/${name}/f${file}.ts`), `${lines.join('\n')}\n`));
  for (const name of NAMES) {
    mkdirSync(join(repo, 'src', name), { recursive: true });
    write(name);
  }
  commit(repo, 'base');
  git(repo, ['remote', 'add', 'origin', origin]);
  git(repo, ['push', '-q', 'origin', 'main']);
  const client = await clientHome(dir, undefined, repo);

  /** A branch of `count` commits, half of them an agent's, pushed as the request `number`'s head. */
  const branch = async (name: string, count: number, number: number) => {
    git(repo, ['checkout', '-q', '-b', name, 'main']);
    log(`  building a ${count}-commit pull request (${name})`);
    for (let index = 0; index < count; index += 1) {
      const written: Record<string, string[]> = {};
      const files = trees.get(name)!;
      for (let touch = 0; touch < 3; touch += 1) {
        const file = Math.floor(random() * FILES);
        const path = `src/${name}/f${file}.ts`;
        for (let line = 0; line < 6; line += 1) {
          const text = `export const ${name}_${index}_${touch}_${line} = ${Math.floor(random() * 1e6)};`;
          files[file]!.splice(Math.floor(random() * files[file]!.length), 0, text);
          (written[path] ??= []).push(text);
        }
      }
      write(name);
      if (index % 2 === 1) {
        const row = traceRow({ agent: 'claude-code', conversation: `${name}-${index % 5}`, files: written });
        appendFileSync(join(client.projectDir, 'traces.jsonl'), `${JSON.stringify(row)}\n`);
      }
      commit(repo, `${name} ${index}`);
      await linkCommit({ projectDir: client.projectDir, git: { cwd: repo, env }, rev: 'HEAD' });
    }
    git(repo, ['push', '-q', 'origin', `${name}:refs/pull/${number}/head`]);
    git(repo, ['checkout', '-q', 'main']);
  };
  const service = join(dir, 'service');
  git(dir, ['clone', '-q', origin, service]);
  const land = (how: 'squash' | 'rebase', name: string, number: number) => {
    git(service, ['fetch', '-q', 'origin', `refs/pull/${number}/head`]);
    if (how === 'squash') {
      git(service, ['merge', '-q', '--squash', 'FETCH_HEAD']);
      commit(service, `${name} (#${number})`);
    } else {
      const commits = git(service, ['rev-list', '--reverse', `HEAD..FETCH_HEAD`]).split('\n');
      for (const each of commits) git(service, ['cherry-pick', each], { GIT_COMMITTER_DATE: new Date((clock += 60_000)).toISOString() });
    }
    git(service, ['push', '-q', 'origin', 'main']);
  };

  // Squash and rebase-merge of two 50-commit requests, then a 10-commit request pulled through the hook.
  await branch('squashed', options.commits, 1);
  await branch('rebased', options.commits, 2);
  await branch('pulled', options.pullCommits, 3);
  land('squash', 'squashed', 1);
  land('rebase', 'rebased', 2);
  git(repo, ['pull', '-q', '--no-rebase', '--no-verify', 'origin', 'main'], { TRACER_HOME: join(dir, 'nowhere') });
  const squash = git(repo, ['rev-parse', `HEAD~${options.commits}`]);
  const rebasedRange = `HEAD~${options.commits}..HEAD`;
  const saved = snapshot(client);

  // tracer --version in the same run: what starting node costs on this machine at this load.
  const versions: number[] = [];
  for (let run = 0; run < options.runs; run += 1)
    versions.push(expectOk(await measure(client.spec(['--version'])), 'tracer --version').wallMs);
  const versionMs = round(median(versions));
  const results: Result[] = [];
  for (const [label, range] of [
    ['squash', `${squash}^!`],
    ['rebase', rebasedRange],
  ] as const) {
    const samples: number[] = [];
    let reconciled = 0;
    for (let run = 0; run < options.runs; run += 1) {
      restore(client, saved, git);
      const result = expectOk(await measure(client.spec(['reconcile', range, '--json'])), `tracer reconcile (${label})`);
      samples.push(result.wallMs);
      reconciled = JSON.parse(result.stdout).reconciled.length;
    }
    const expected = label === 'squash' ? 1 : options.commits;
    if (reconciled !== expected) throw new Error(`reconcile (${label}) reconciled ${reconciled} commits, not ${expected}`);
    const ms = median(samples);
    log(`  tracer reconcile, ${label} of ${options.commits} commits: ${round(ms)} ms over ${options.runs} runs`);
    results.push({
      workload: `11. reconcile ${label}`,
      size: `${options.commits}-commit pull request, ${FILES} files`,
      tracerMs: round(ms),
      ratio: round(ms / 2000),
      bar: '≤ 2 s',
      pass: ms <= 2000,
      notes: `cold cache; whole process: node start, git, ledger and note writes; tracer --version ${versionMs} ms`,
      samples: { tracer: samples },
    });
  }

  // The hook: the same pull with and without post-merge, alternating.
  land('rebase', 'pulled', 3);
  const hook = join(repo, '.git/hooks/post-merge');
  if (!existsSync(hook)) throw new Error('tracer init installed no post-merge hook');
  const before = git(repo, ['rev-parse', 'HEAD']);
  const afterPull = snapshot(client, true);
  const pullSpec = {
    command: 'git',
    args: ['pull', '-q', '--no-rebase', 'origin', 'main'],
    cwd: repo,
    env: { ...env, TRACER_HOME: client.home },
  };
  const withHook: number[] = [];
  const without: number[] = [];
  let hookReconciled = 0;
  for (let run = 0; run < options.runs * 2; run += 1) {
    const hooked = run % 2 === 0;
    git(repo, ['reset', '-q', '--hard', before]);
    // The cache as before the first pull: the patch-ids of the ledgered commits known, of the pulled ones not.
    restore(client, afterPull, git);
    if (!hooked) renameSync(hook, `${hook}.off`);
    const result = expectOk(await measure(pullSpec), 'git pull');
    if (!hooked) renameSync(`${hook}.off`, hook);
    (hooked ? withHook : without).push(result.wallMs);
    if (hooked)
      hookReconciled = reconciledRows(join(client.projectDir, 'ledgers.jsonl')) - reconciledRows(join(afterPull.dir, 'ledgers.jsonl'));
  }
  const added = median(withHook) - median(without);
  log(
    `  git pull of ${options.pullCommits} commits: ${round(median(without))} ms, with the post-merge hook ${round(median(withHook))} ms (+${round(added)} ms)`,
  );
  results.push({
    workload: '11. post-merge hook',
    size: `git pull of a ${options.pullCommits}-commit rebase-merge`,
    tracerMs: round(added),
    baselineMs: round(median(without)),
    baselineLabel: 'git pull without the hook',
    ratio: round(added / 500),
    bar: '≤ 0.5 s added to git pull',
    pass: added <= 500,
    notes: `the hook reconciled ${hookReconciled} of the ${options.pullCommits} pulled commits; tracer --version ${versionMs} ms`,
    samples: { withHook, without },
  });
  return results;
}

function reconciledRows(path: string): number {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.includes('"reconciled"')).length;
}

interface Snapshot {
  dir: string;
}

/** What a reconcile writes in the project folder: ledger rows, commit links, and the commits' claims. */
const SNAPSHOT_FILES = ['ledgers.jsonl', 'commit-links.jsonl', 'attribution-state.json'];
const CACHE_FILE = 'reconcile-cache.json';

/** `withCache`: the reconcile cache too, restored with the rest (else restore removes it: a cold cache). */
function snapshot(client: ClientHome, withCache = false): Snapshot {
  const dir = join(client.projectDir, '..', `.snapshot-${Date.now()}`);
  mkdirSync(dir, { recursive: true });
  for (const name of withCache ? [...SNAPSHOT_FILES, CACHE_FILE] : SNAPSHOT_FILES) {
    if (existsSync(join(client.projectDir, name))) copyFileSync(join(client.projectDir, name), join(dir, name));
  }
  return { dir };
}

/** Back to the state of the snapshot: rows, the commits' claims, notes and cache (not timed). */
function restore(client: ClientHome, saved: Snapshot, git: (cwd: string, args: string[]) => string): void {
  for (const name of SNAPSHOT_FILES) {
    if (existsSync(join(saved.dir, name))) copyFileSync(join(saved.dir, name), join(client.projectDir, name));
  }
  if (existsSync(join(saved.dir, CACHE_FILE))) copyFileSync(join(saved.dir, CACHE_FILE), join(client.projectDir, CACHE_FILE));
  else rmSync(join(client.projectDir, CACHE_FILE), { force: true });
  try {
    git(client.repo, ['update-ref', '-d', 'refs/notes/tracer']);
  } catch {
    // No notes yet.
  }
}
