// Workloads 21 and 22 (issue 34, issue 30 item 4): the work tracer does
// after the command that asked for it has returned.
//
// 21. `git commit` in a repository with tracer's hooks against the same commit
// in one without them (alternating, one loop, median): the post-commit hook
// spools the commit (starting only `git rev-parse`) and folds in the
// background; bar ≤ 2.0×. Each background fold is let finish before the next
// sample, so samples do not pay for each other's folds, and the ledgers are
// checked once at the end: a `tracer show` finds each commit's.
//
// 22. `tracer status` right after a fold SIGKILLed while it held the spool's
// lock, with events spooled before it: bar ≤ 1 s, and every event is folded.
// Against `tracer status` with nothing to fold, for scale.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv } from '../../test/helpers/cli.js';
import { BIN, clientHome, ROOT, runFolder } from '../environment.js';
import { expectOk, measure, median, round } from '../measure.js';
import type { Result } from '../report.js';

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
};

export async function commitWorkload(options: { runs: number }, log: (line: string) => void): Promise<Result[]> {
  const dir = runFolder('commit');
  const client = await clientHome(dir);
  const plain = join(dir, 'plain');
  execFileSync('git', ['init', '-q', '-b', 'main', plain], { env: { ...cleanEnv(), ...GIT_ENV } });
  const env = { ...cleanEnv(), ...GIT_ENV, TRACER_HOME: client.home };
  let counter = 0;
  const commitIn = (repo: string) => {
    counter += 1;
    writeFileSync(join(repo, 'file.txt'), `change ${counter}\n`);
    execFileSync('git', ['add', 'file.txt'], { cwd: repo, env });
    return { command: 'git', args: ['commit', '-q', '-m', `change ${counter}`], cwd: repo, env };
  };
  const samples = { hooked: [] as number[], plain: [] as number[] };
  const commits: string[] = [];
  const steps = [
    async () => {
      samples.hooked.push(expectOk(await measure(commitIn(client.repo)), 'git commit with hooks').wallMs);
      commits.push(execFileSync('git', ['rev-parse', 'HEAD'], { cwd: client.repo, encoding: 'utf8' }).trim());
      await spoolIdle(client.home);
    },
    async () => samples.plain.push(expectOk(await measure(commitIn(plain)), 'git commit without hooks').wallMs),
  ];
  for (const step of steps) await step(); // warm-up
  samples.hooked.length = 0;
  samples.plain.length = 0;
  for (let n = 0; n < options.runs; n += 1) for (const step of n % 2 ? [...steps].reverse() : steps) await step();
  expectOk(await client.run(['show', commits.at(-1)!]), 'tracer show');
  const ledgers = readFileSync(join(client.projectDir, 'ledgers.jsonl'), 'utf8');
  const missing = commits.filter((commit) => !ledgers.includes(`"commit":"${commit}"`));
  if (missing.length > 0) throw new Error(`no ledger for ${missing.length} of ${commits.length} commits`);
  const hooked = median(samples.hooked);
  const bare = median(samples.plain);
  log(`  git commit median ${round(hooked)} ms with tracer's hooks, ${round(bare)} ms without, over ${options.runs} runs`);
  return [
    {
      workload: "21. git commit with tracer's hooks",
      size: `one-line change, ${options.runs} runs`,
      tracerMs: round(hooked),
      baselineMs: round(bare),
      baselineLabel: 'git commit without hooks',
      ratio: round(hooked / bare),
      bar: '≤ 2.0× without hooks',
      pass: hooked <= 2 * bare,
      samples: { tracer: samples.hooked, baseline: samples.plain },
    },
  ];
}

export async function deadFoldWorkload(options: { runs: number; events: number }, log: (line: string) => void): Promise<Result[]> {
  const dir = runFolder('dead-fold');
  const client = await clientHome(dir);
  const hookScript = join(ROOT, 'bin', 'tracer-hook.sh');
  const prompt = readFileSync(join(ROOT, 'test', 'fixtures', 'hooks', 'claude-code', 'UserPromptSubmit.json'), 'utf8').replaceAll(
    '__REPO__',
    client.repo,
  );
  const env = { ...cleanEnv(), TRACER_HOME: client.home };
  const after: number[] = [];
  const idle: number[] = [];
  let folded = 0;
  for (let n = 0; n < options.runs; n += 1) {
    const before = rows(client.projectDir);
    // Events spooled as the installed hook spools them, without a fold ('/bin/true' stands for node).
    for (let event = 0; event < options.events; event += 1)
      execFileSync('/bin/sh', [hookScript, '/bin/true', BIN, 'hook', 'claude-code', 'UserPromptSubmit'], {
        cwd: client.repo,
        env,
        input: prompt,
      });
    // Killed after it took the lock, perhaps with a few events folded: the rest are status's.
    await killedWhileHolding(client.home, client.repo, env);
    const result = expectOk(await measure(client.spec(['status'])), 'tracer status');
    if (/spool_not_folded|waiting for/.test(result.stderr)) throw new Error(`status waited or could not fold: ${result.stderr}`);
    after.push(result.wallMs);
    folded += rows(client.projectDir) - before;
    idle.push(expectOk(await measure(client.spec(['status'])), 'tracer status').wallMs);
  }
  if (folded < options.runs * options.events)
    throw new Error(`status showed ${folded} of the ${options.runs * options.events} events spooled before it`);
  const ms = median(after);
  log(
    `  status after a SIGKILLed fold median ${round(ms)} ms (${options.events} events spooled), ${round(median(idle))} ms with nothing to fold`,
  );
  return [
    {
      workload: '22. tracer status after a fold SIGKILLed holding the lock',
      size: `${options.events} events spooled, ${options.runs} runs`,
      tracerMs: round(ms),
      baselineMs: round(median(idle)),
      baselineLabel: 'tracer status, nothing to fold',
      ratio: round(ms / median(idle)),
      bar: '≤ 1000 ms, every event shown',
      pass: ms <= 1000,
      samples: { tracer: after, baseline: idle },
    },
  ];
}

/** Starts `tracer hook --fold` and SIGKILLs it the moment its lock file names it. */
async function killedWhileHolding(home: string, cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  const lock = join(home, 'spool', '.fold.lock');
  const child = spawn(process.execPath, [BIN, 'hook', '--fold'], { cwd, env, stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  for (;;) {
    if (child.exitCode !== null) throw new Error('the fold ended before it could be killed holding its lock: spool more events');
    try {
      if ((JSON.parse(readFileSync(lock, 'utf8')) as { pid?: number }).pid === child.pid) break;
    } catch {
      // not yet
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  child.kill('SIGKILL');
  await exited;
}

function rows(projectDir: string): number {
  const path = join(projectDir, 'traces.jsonl');
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean).length : 0;
}

/** Until the hooks' background fold has folded the spool and let go of its lock. */
async function spoolIdle(home: string): Promise<void> {
  const dir = join(home, 'spool');
  for (let waited = 0; waited < 60_000; waited += 10) {
    const names = existsSync(dir) ? readdirSync(dir) : [];
    if (!names.some((name) => name.endsWith('.event') || name === '.fold.lock')) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`the spool of ${home} was not folded within 60 s`);
}
