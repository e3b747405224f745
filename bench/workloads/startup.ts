// Workload 13: start-up (issue 30). The commands people and hooks run most,
// each against the bar the issue sets: `tracer --version`, `remote list`,
// `config list` and `blame <file>` at most 1.3x `node -e 0`, `status` at most
// 1.5x, and a no-op `push` and `push --full` on a pushed project at most 1.3x
// `tracer --version`. Every command runs once per round, the order reversed
// every other round so that the machine's load hits all alike, and a ratio is
// the median of each round's own ratio (a round's command against the
// `node -e 0` or `--version` of the same round), not of the medians. CPU time
// (user + system, from bash's `times`) is kept beside wall time: on a machine
// other work loads, a process waits for a core for longer than it runs, and
// its CPU time is the steadier figure.
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv } from '../../test/helpers/cli.js';
import { clientHome, runFolder, startBenchService } from '../environment.js';
import { median, round, type RunSpec } from '../measure.js';
import type { Result } from '../report.js';

interface Probe {
  name: string;
  spec: RunSpec;
  /** The probe it is compared with, and the bar. */
  against: 'node' | 'version';
  bar: number;
}

export async function startupWorkload(options: { runs: number }, log: (line: string) => void): Promise<Result[]> {
  const dir = runFolder('startup');
  const service = await startBenchService({ backend: 'sqlite', dataDir: join(dir, 'service') });
  const token = await service.project('startup');
  const client = await clientHome(dir, { url: service.remoteUrl('startup'), token });
  // Three commits through tracer's git hooks (each gets its ledger), pushed once: the push that is measured has nothing to send.
  const env = { ...cleanEnv(), TRACER_HOME: client.home, GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'b@example.com' };
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: client.repo, env: { ...env, GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'b@example.com' } });
  for (const count of [20, 40, 60]) {
    writeFileSync(join(client.repo, 'lines.txt'), Array.from({ length: count }, (_, index) => `line ${index + 1}\n`).join(''));
    git('add', 'lines.txt');
    git('commit', '-q', '-m', `${count} lines`);
  }
  const first = await client.run(['push', '--full']);
  if (first.code !== 0) throw new Error(`the first push exited ${first.code}: ${first.stderr}`);
  const probes: Probe[] = [
    { name: '`tracer --version`', spec: client.spec(['--version']), against: 'node', bar: 1.3 },
    { name: '`tracer remote list`', spec: client.spec(['remote', 'list']), against: 'node', bar: 1.3 },
    { name: '`tracer config list`', spec: client.spec(['config', 'list']), against: 'node', bar: 1.3 },
    { name: '`tracer blame <file>`', spec: client.spec(['blame', 'lines.txt']), against: 'node', bar: 1.3 },
    { name: '`tracer status`', spec: client.spec(['status']), against: 'node', bar: 1.5 },
    { name: 'no-op `tracer push`', spec: client.spec(['push']), against: 'version', bar: 1.3 },
    { name: 'no-op `tracer push --full`', spec: client.spec(['push', '--full']), against: 'version', bar: 1.3 },
  ];
  const node: RunSpec = { command: process.execPath, args: ['-e', '0'], cwd: client.repo, env: client.spec([]).env };
  const all = [{ name: 'node', spec: node }, ...probes];
  const wall = new Map<string, number[]>(all.map((probe) => [probe.name, []]));
  const cpu = new Map<string, number[]>(all.map((probe) => [probe.name, []]));
  const ratios = new Map<string, number[]>(probes.map((probe) => [probe.name, []]));
  const cpuRatios = new Map<string, number[]>(probes.map((probe) => [probe.name, []]));
  // One warm-up each: the first run pays for cold file caches.
  for (const probe of all) await timed(probe.spec, probe.name);
  for (let round = 0; round < options.runs; round += 1) {
    const times = new Map<string, { wallMs: number; cpuMs: number }>();
    for (const probe of round % 2 ? [...all].reverse() : all) times.set(probe.name, await timed(probe.spec, probe.name));
    for (const [name, time] of times) {
      wall.get(name)!.push(time.wallMs);
      cpu.get(name)!.push(time.cpuMs);
    }
    for (const probe of probes) {
      const base = times.get(probe.against === 'node' ? 'node' : probes[0]!.name)!;
      ratios.get(probe.name)!.push(times.get(probe.name)!.wallMs / base.wallMs);
      cpuRatios.get(probe.name)!.push(times.get(probe.name)!.cpuMs / base.cpuMs);
    }
  }
  await service.handle.stop();
  log(
    `  node -e 0 median ${round(median(wall.get('node')!))} ms, ${round(median(cpu.get('node')!))} ms of CPU, over ${options.runs} rounds`,
  );
  return probes.map((probe) => {
    const ratio = median(ratios.get(probe.name)!);
    const cpuRatio = median(cpuRatios.get(probe.name)!);
    const baseName = probe.against === 'node' ? 'node' : probes[0]!.name;
    log(
      `  ${probe.name}: ${round(median(wall.get(probe.name)!))} ms, ${round(ratio)}x; CPU ${round(median(cpu.get(probe.name)!))} ms, ${round(cpuRatio)}x`,
    );
    return {
      workload: `13. start-up: ${probe.name}`,
      size: `${options.runs} alternating rounds`,
      tracerMs: round(median(wall.get(probe.name)!)),
      baselineMs: round(median(wall.get(baseName)!)),
      baselineLabel: probe.against === 'node' ? 'node -e 0' : 'tracer --version',
      ratio: round(ratio),
      bar: `≤ ${probe.bar}× ${probe.against === 'node' ? 'node -e 0' : '--version'}`,
      pass: ratio <= probe.bar,
      notes: `CPU ${round(median(cpu.get(probe.name)!))} ms against ${round(median(cpu.get(baseName)!))} ms: ${round(cpuRatio)}×`,
      samples: {
        tracer: wall.get(probe.name)!,
        baseline: wall.get(baseName)!,
        ratio: ratios.get(probe.name)!,
        cpuRatio: cpuRatios.get(probe.name)!,
      },
    };
  });
}

/** Wall time around the process, and its CPU time (user + system, bash's `times` for its children, to the millisecond). */
async function timed(spec: RunSpec, what: string): Promise<{ wallMs: number; cpuMs: number }> {
  const started = process.hrtime.bigint();
  const { code, stderr } = await new Promise<{ code: number; stderr: string }>((resolve, reject) => {
    const child = spawn(
      '/bin/bash',
      ['-c', '"$@" >/dev/null 2>/dev/null </dev/null; code=$?; times >&2; exit $code', 'timed', spec.command, ...spec.args],
      {
        cwd: spec.cwd,
        env: spec.env,
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    const err: Buffer[] = [];
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (exit) => resolve({ code: exit ?? -1, stderr: Buffer.concat(err).toString('utf8') }));
  });
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (code !== 0) throw new Error(`${what} exited ${code}`);
  // `times` prints the shell's own user and system times, then its children's: `0m0.041s 0m0.012s`.
  const seconds = (text: string) => {
    const match = /(\d+)m([\d.]+)s/.exec(text);
    return match ? Number(match[1]) * 60 + Number(match[2]) : NaN;
  };
  const children = stderr.trim().split('\n').at(-1)!.split(' ');
  return { wallMs, cpuMs: (seconds(children[0]!) + seconds(children[1]!)) * 1000 };
}
