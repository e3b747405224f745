// `npm run bench:profile [-- --quick]`: where the time of workloads 1-3 goes.
// Against a fresh SQLite service, runs push, a no-op push and a pull into an
// empty home, each under `node --cpu-prof`, and prints per step the wall time
// and the CPU time the service used meanwhile (from /proc, so from the OS).
// Open the .cpuprofile files in Chrome DevTools or https://www.speedscope.app.
// The figures in BENCHMARKS.md ("what limits each figure") come from here.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { clientHome, runFolder, seedProject, startBenchService, stopAllServices } from './environment.js';
import { measure } from './measure.js';
import { syncDataset } from './workloads/sync.js';

const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
const size = values.quick ? { traces: 10_000, ledgers: 200, commitLinks: 200 } : { traces: 100_000, ledgers: 2_000, commitLinks: 2_000 };
const { dir: datasetDir } = await syncDataset(size);
const dir = runFolder('profile');
const profiles = join(dir, 'profiles');
const service = await startBenchService({ backend: 'sqlite', dataDir: join(dir, 'service') });
try {
  const token = await service.project('sync');
  const servicePid = listeningPid(new URL(service.handle.url).port);
  const pusher = await clientHome(join(dir, 'pusher'), { url: service.remoteUrl('sync'), token });
  seedProject(pusher.projectDir, datasetDir);
  const puller = await clientHome(join(dir, 'puller'), { url: service.remoteUrl('sync'), token });
  for (const [step, client, args] of [
    ['push', pusher, ['push']],
    ['no-op-push', pusher, ['push']],
    ['pull', puller, ['pull']],
  ] as const) {
    const spec = client.spec(args);
    const cpuBefore = cpuMs(servicePid);
    const run = await measure({
      ...spec,
      args: ['--cpu-prof', `--cpu-prof-dir=${profiles}`, `--cpu-prof-name=${step}.cpuprofile`, ...spec.args],
    });
    if (run.code !== 0) throw new Error(`tracer ${args.join(' ')} exited ${run.code}:\n${run.stderr}`);
    console.log(`${step.padEnd(11)} ${Math.round(run.wallMs)} ms wall (profiled), service CPU ${cpuMs(servicePid) - cpuBefore} ms`);
  }
  console.log(`profiles: ${profiles}`);
} finally {
  await service.handle.stop();
  await stopAllServices();
}

/** The process listening on `port` (the service child), from ss. */
function listeningPid(port: string): number {
  const line = execFileSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' });
  const pid = /pid=(\d+)/.exec(line)?.[1];
  if (!pid) throw new Error(`no process found listening on port ${port}`);
  return Number(pid);
}

/** User + system CPU time of a process so far, in ms (/proc/<pid>/stat, in clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
