// Workload 5: the claude-code PostToolUse hook with the recorded Edit payload
// (test/fixtures/hooks), in an initialized repository, against `node -e 0`;
// they alternate so machine load hits all alike. The way an agent runs it,
// which is what the bar (issue 23: no slower than starting node at all) is
// about: `sh -c` on the command `tracer init` writes for an npm or clone
// install (bin/tracer-hook.sh, which spools the payload and folds it in the
// background), and `sh -c` on an install.sh install's launcher (which hands
// the hook to the same script). For reference, node on bin/tracer.js `hook`,
// which records before it returns (TRACER_HOOK_SYNC=1, or a call by hand).
// The background folds run while later samples are taken, as on an agent's
// machine; every event must be in traces.jsonl once they are done.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clientHome, ROOT, runFolder } from '../environment.js';
import { expectOk, measure, median, round, type Measured } from '../measure.js';
import type { Result } from '../report.js';

export async function hookWorkload(options: { runs: number }, log: (line: string) => void): Promise<Result[]> {
  const dir = runFolder('hook');
  const client = await clientHome(dir);
  const fixtures = join(ROOT, 'test', 'fixtures', 'hooks', 'claude-code');
  const transcript = join(dir, 'transcript.jsonl');
  copyFileSync(join(fixtures, 'transcript.jsonl'), transcript);
  mkdirSync(join(client.repo, 'src'), { recursive: true });
  writeFileSync(
    join(client.repo, 'src', 'main.ts'),
    "// entry point\nimport { greet } from './greet.js';\n\nconsole.log(greet('world'));\nexport {};\n",
  );
  const payload = readFileSync(join(fixtures, 'PostToolUse.Edit.json'), 'utf8')
    .replaceAll('__REPO__', client.repo)
    .replaceAll('__TRANSCRIPT__', transcript);
  const hook = client.spec(['hook', 'claude-code', 'PostToolUse'], { input: payload });
  const launcher = installLauncher(dir);
  const viaLauncher = { ...hook, command: '/bin/sh', args: ['-c', `'${launcher}' hook claude-code PostToolUse`] };
  const installed = { ...hook, command: '/bin/sh', args: ['-c', installedCommand(client.repo)] };
  const bare = { command: process.execPath, args: ['-e', '0'] };
  const samples = { direct: [] as number[], installed: [] as number[], launcher: [] as number[], node: [] as number[] };
  const steps = [
    async () => samples.direct.push(recorded(await measure(hook))),
    async () => samples.installed.push(recorded(await measure(installed))),
    async () => samples.launcher.push(recorded(await measure(viaLauncher))),
    async () => samples.node.push(expectOk(await measure(bare), 'node -e 0').wallMs),
  ];
  // One warm-up each: the first run pays for cold file caches.
  for (const spec of [hook, installed, viaLauncher, bare]) await measure(spec);
  for (let n = 0; n < options.runs; n += 1) for (const step of n % 2 ? [...steps].reverse() : steps) await step();
  // A command folds what the background folds have not yet (it waits for one under way).
  expectOk(await measure(client.spec(['status'])), 'tracer status');
  const rows = readFileSync(join(client.projectDir, 'traces.jsonl'), 'utf8').split('\n').filter(Boolean).length;
  if (rows !== 3 * (options.runs + 1)) throw new Error(`the hook recorded ${rows} traces for ${3 * (options.runs + 1)} runs`);
  const node = median(samples.node);
  log(
    `  hook median ${round(median(samples.installed))} ms (sh -c installed command), ${round(median(samples.launcher))} ms (sh -c launcher), ${round(median(samples.direct))} ms (node bin/tracer.js hook, records before it returns), node -e 0 median ${round(node)} ms over ${options.runs} runs`,
  );
  const row = (how: string, values: number[]): Result => ({
    workload: `5. hook latency, ${how}`,
    size: `claude-code PostToolUse (Edit), ${options.runs} runs`,
    tracerMs: round(median(values)),
    baselineMs: round(node),
    baselineLabel: 'node -e 0',
    ratio: round(median(values) / node),
    bar: '≤ 1.0× node -e 0',
    pass: median(values) <= node,
    samples: { tracer: values, baseline: samples.node },
  });
  // The bar is the agent's path; `tracer hook` by hand is only in the log line above.
  return [row('sh -c on the installed command', samples.installed), row('sh -c on the installed launcher', samples.launcher)];
}

/** The PostToolUse command `tracer init` wrote into .claude/settings.json. */
function installedCommand(repo: string): string {
  const settings = JSON.parse(readFileSync(join(repo, '.claude', 'settings.json'), 'utf8'));
  return settings.hooks.PostToolUse[0].hooks[0].command;
}

function recorded(result: Measured): number {
  expectOk(result, 'tracer hook');
  if (result.stdout !== '') throw new Error(`tracer hook printed ${JSON.stringify(result.stdout)}`);
  return result.wallMs;
}

/** install.sh into the run folder (copies the built program and its production dependencies, offline): the launcher agents run. */
function installLauncher(dir: string): string {
  const home = join(dir, 'installed');
  execFileSync('/bin/sh', [join(ROOT, 'install.sh')], { env: { ...process.env, TRACER_HOME: home, HOME: dir }, stdio: 'ignore' });
  return join(home, 'bin', 'tracer');
}
