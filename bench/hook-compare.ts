// `node --import tsx bench/hook-compare.ts --base <dir> [--runs N]`: the CPU and
// wall time of `tracer hook` as this checkout builds it against another build
// of tracer (a copy of an earlier commit, built with `npm run build`), and
// `node -e 0`, alternating run by run so that the machine's load hits all
// alike. Each hook records before it returns (a call by hand, as the spool's
// fold makes it). CPU is user + system time from GNU time, steadier than wall
// time on a loaded machine; GNU time counts it in 10 ms steps, so the mean over
// many runs is the finer figure.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { cleanEnv } from '../test/helpers/cli.js';
import { GNU_TIME, median, round } from './measure.js';
import { ROOT, runFolder } from './environment.js';

const { values } = parseArgs({ options: { base: { type: 'string' }, runs: { type: 'string', default: '15' } } });
if (!values.base) throw new Error('--base <dir>: a built copy of the tracer to compare with');
const builds = { base: join(values.base, 'bin', 'tracer.js'), this: join(ROOT, 'bin', 'tracer.js') };
const runs = Number(values.runs);
const fixtures = join(ROOT, 'test', 'fixtures', 'hooks', 'claude-code');

interface Sample {
  wall: number;
  cpu: number;
}

function timed(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): Sample {
  const result = spawnSync(GNU_TIME, ['-f', '%e %U %S', command, ...args], { ...options, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  const [wall, user, system] = result.stderr.trim().split('\n').at(-1)!.split(' ').map(Number);
  return { wall: wall! * 1000, cpu: (user! + system!) * 1000 };
}

/** A repository initialized by that build, and the hook payloads of its Claude Code session. */
function setup(name: keyof typeof builds) {
  const dir = runFolder(`hook-compare-${name}`);
  const home = join(dir, 'home');
  const repo = join(dir, 'repo');
  mkdirSync(join(repo, 'src'), { recursive: true });
  const env = { ...cleanEnv(), TRACER_HOME: home, TRACER_HOOK_SYNC: '1' };
  execFileSync('git', ['init', '-q', repo]);
  writeFileSync(
    join(repo, 'src', 'main.ts'),
    "// entry point\nimport { greet } from './greet.js';\n\nconsole.log(greet('world'));\nexport {};\n",
  );
  execFileSync(process.execPath, [builds[name], 'init', '--agents', 'claude-code'], { cwd: repo, env, stdio: 'ignore' });
  const transcript = join(dir, 'transcript.jsonl');
  copyFileSync(join(fixtures, 'transcript.jsonl'), transcript);
  const payload = (event: string) =>
    readFileSync(join(fixtures, `${event}.json`), 'utf8')
      .replaceAll('__REPO__', repo)
      .replaceAll('__TRANSCRIPT__', transcript);
  return { repo, env, edit: payload('PostToolUse.Edit'), stop: payload('Stop') };
}

const set = { base: setup('base'), this: setup('this') };
const samples: Record<string, Sample[]> = {};
const take = (key: string, sample: Sample) => (samples[key] ??= []).push(sample);
const steps = [
  ...(['base', 'this'] as const).flatMap((name) => [
    () =>
      take(
        `${name} PostToolUse`,
        timed(process.execPath, [builds[name], 'hook', 'claude-code', 'PostToolUse'], {
          cwd: set[name].repo,
          env: set[name].env,
          input: set[name].edit,
        }),
      ),
    () =>
      take(
        `${name} Stop`,
        timed(process.execPath, [builds[name], 'hook', 'claude-code', 'Stop'], {
          cwd: set[name].repo,
          env: set[name].env,
          input: set[name].stop,
        }),
      ),
  ]),
  () => take('node -e 0', timed(process.execPath, ['-e', '0'])),
];
for (const step of steps) step();
for (let n = 0; n < runs; n += 1) for (const step of n % 2 ? [...steps].reverse() : steps) step();
const mean = (list: number[]) => list.reduce((sum, value) => sum + value, 0) / list.length;
const nodeCpu = mean(samples['node -e 0']!.map((sample) => sample.cpu));
process.stdout.write(
  `${runs} runs each\n| Command | CPU mean | CPU median | Wall median | CPU mean / node -e 0 |\n|---|---:|---:|---:|---:|\n`,
);
for (const [key, list] of Object.entries(samples)) {
  const cpu = list.map((sample) => sample.cpu);
  const wall = median(list.map((sample) => sample.wall));
  process.stdout.write(
    `| ${key} | ${round(mean(cpu), 1)} ms | ${round(median(cpu), 0)} ms | ${round(wall, 0)} ms | ${round(mean(cpu) / nodeCpu)}× |\n`,
  );
}
