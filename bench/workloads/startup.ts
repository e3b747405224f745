// Workload 12: start-up (issue 30). The commands people and hooks run most,
// each against the bar the issue sets: `tracer --version`, `remote list`,
// `config list` and `blame <file>` at most 1.3x `node -e 0`, `status` at most
// 1.5x, and a no-op `push` and `push --full` on a pushed project at most 1.3x
// `tracer --version`. Every command runs once per round, the order reversed
// every other round so that the machine's load hits all alike, and a ratio is
// the median of each round's own ratio (a round's command against the
// `node -e 0` or `--version` of the same round), not of the medians.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv } from '../../test/helpers/cli.js';
import { clientHome, runFolder, startBenchService } from '../environment.js';
import { expectOk, measure, median, round, type RunSpec } from '../measure.js';
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
  expectOk(await client.run(['push', '--full']), 'the first push');
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
  const ratios = new Map<string, number[]>(probes.map((probe) => [probe.name, []]));
  // One warm-up each: the first run pays for cold file caches.
  for (const probe of all) expectOk(await measure(probe.spec), probe.name);
  for (let round = 0; round < options.runs; round += 1) {
    const times = new Map<string, number>();
    for (const probe of round % 2 ? [...all].reverse() : all) times.set(probe.name, expectOk(await measure(probe.spec), probe.name).wallMs);
    for (const [name, ms] of times) wall.get(name)!.push(ms);
    for (const probe of probes) {
      const base = times.get(probe.against === 'node' ? 'node' : probes[0]!.name)!;
      ratios.get(probe.name)!.push(times.get(probe.name)! / base);
    }
  }
  await service.handle.stop();
  log(`  node -e 0 median ${round(median(wall.get('node')!))} ms over ${options.runs} rounds`);
  return probes.map((probe) => {
    const ratio = median(ratios.get(probe.name)!);
    const baseName = probe.against === 'node' ? 'node' : probes[0]!.name;
    log(`  ${probe.name}: ${round(median(wall.get(probe.name)!))} ms, ${round(ratio)}x`);
    return {
      workload: `12. start-up: ${probe.name}`,
      size: `${options.runs} alternating rounds`,
      tracerMs: round(median(wall.get(probe.name)!)),
      baselineMs: round(median(wall.get(baseName)!)),
      baselineLabel: probe.against === 'node' ? 'node -e 0' : 'tracer --version',
      ratio: round(ratio),
      bar: `≤ ${probe.bar}× ${probe.against === 'node' ? 'node -e 0' : '--version'}`,
      pass: ratio <= probe.bar,
      samples: { tracer: wall.get(probe.name)!, baseline: wall.get(baseName)!, ratio: ratios.get(probe.name)! },
    };
  });
}
