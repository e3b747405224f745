// The pieces every workload needs: a real `tracer serve` child process, client
// homes bound to it the way a user binds one (`tracer init`, `tracer remote
// add`), and the built CLI run as a separate process. Everything lives under
// .tracer-bench/ (gitignored).
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN, cleanEnv } from '../test/helpers/cli.js';
import { spawnService, stopAllServices, type ServiceHandle } from '../test/helpers/service.js';
import { expectOk, measure, type Measured, type RunSpec } from './measure.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const BENCH_DIR = resolve(ROOT, '.tracer-bench');
export const DATA_DIR = join(BENCH_DIR, 'data');
export const RUN_DIR = join(BENCH_DIR, 'run');
export const ORG = 'bench';
export { BIN, stopAllServices };

let counter = 0;
/** A fresh folder under .tracer-bench/run/ for one measurement. */
export function runFolder(name: string): string {
  counter += 1;
  const dir = join(RUN_DIR, `${process.pid}-${counter}-${name}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

export function clearRuns(): void {
  rmSync(RUN_DIR, { recursive: true, force: true });
}

export interface BenchService {
  handle: ServiceHandle;
  /** The remote URL of `project` on it. */
  remoteUrl(project: string): string;
  /** Registers the project and returns a project token. */
  project(project: string): Promise<string>;
}

/** A fresh service as a child process (`tracer serve`), SQLite in `dataDir` or a fresh PostgreSQL schema. */
export async function startBenchService(options: { backend: 'sqlite' | 'postgres'; dataDir: string }): Promise<BenchService> {
  const handle = await spawnService({ backend: options.backend, dataDir: options.dataDir, logLevel: 'error' });
  return {
    handle,
    remoteUrl: (project) => `${handle.url}/${ORG}/${project}`,
    async project(project) {
      await handle.createProject(ORG, project);
      return handle.createToken({ org: ORG, project, name: `bench-${project}` });
    },
  };
}

export interface ClientHome {
  home: string;
  repo: string;
  /** `$TRACER_HOME/projects/<id>/`: where the JSONL files and the conversation cache live. */
  projectDir: string;
  spec(args: readonly string[], extra?: Partial<RunSpec>): RunSpec;
  run(args: readonly string[], options?: { memory?: boolean; input?: string }): Promise<Measured>;
}

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
};

/** A repository, a home, `tracer init`, and (when given) a remote `origin` with its token. */
export async function clientHome(dir: string, remote?: { url: string; token: string }, repo?: string): Promise<ClientHome> {
  const home = join(dir, 'home');
  if (!repo) {
    repo = join(dir, 'repo');
    mkdirSync(repo, { recursive: true });
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env: { ...cleanEnv(), ...GIT_ENV }, stdio: 'ignore' });
    git('init', '-q', '-b', 'main');
    git('commit', '-q', '--allow-empty', '-m', 'initial');
  }
  const env = { ...cleanEnv(), TRACER_HOME: home, NO_COLOR: '1' };
  const spec = (args: readonly string[], extra: Partial<RunSpec> = {}): RunSpec => ({
    command: process.execPath,
    args: [BIN, ...args],
    cwd: repo,
    env,
    ...extra,
  });
  const run = (args: readonly string[], options: { memory?: boolean; input?: string } = {}) =>
    measure(spec(args, { input: options.input }), options);
  const init = expectOk(await run(['init']), 'tracer init');
  const projectDir = /data:\s+(\S+)/.exec(init.stdout)?.[1];
  if (!projectDir) throw new Error(`tracer init did not name its data folder:\n${init.stdout}`);
  if (remote) expectOk(await run(['remote', 'add', 'origin', remote.url, '--token', remote.token]), 'tracer remote add');
  return { home, repo, projectDir, spec, run };
}

/** Copies a generated data set's files into a project folder (the JSONL files and the conversation cache). */
export function seedProject(projectDir: string, datasetDir: string): void {
  for (const name of readdirSync(datasetDir)) {
    if (name.startsWith('.')) continue;
    const from = join(datasetDir, name);
    if (statSync(from).isDirectory()) cpSync(from, join(projectDir, name), { recursive: true });
    else copyFileSync(from, join(projectDir, name));
  }
}

/**
 * Runs a raw baseline script (bench/baselines/*.ts) in its own process, compiled to
 * JavaScript and started with plain `node`, as tracer's built CLI is: `wallMs` is
 * its whole process, the figure a tracer command's whole process is compared
 * with (both pay node's start; each pays its own modules). `ms` is what the
 * script times itself, from after its modules loaded (BENCHMARKS.md, "Raw
 * baselines").
 */
export async function runBaseline(
  script: string,
  args: readonly string[],
): Promise<{ ms: number; wallMs: number; detail: Record<string, unknown> }> {
  const compiled = await compiledBaseline(script);
  const result = expectOk(
    await measure({ command: process.execPath, args: [compiled, ...args], cwd: ROOT, env: cleanEnv() }),
    `baseline ${script}`,
  );
  const detail = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as Record<string, unknown> & { ms: number };
  return { ms: detail.ms, wallMs: result.wallMs, detail };
}

const compiledBaselines = new Map<string, Promise<string>>();
/** The baseline bundled into one ES module under .tracer-bench/baselines/, once per bench run. */
function compiledBaseline(script: string): Promise<string> {
  let compiled = compiledBaselines.get(script);
  if (!compiled) {
    compiled = (async () => {
      const path = join(ROOT, 'bench', 'baselines', script);
      if (!existsSync(path)) throw new Error(`no baseline ${path}`);
      const outfile = join(BENCH_DIR, 'baselines', script.replace(/\.ts$/, '.mjs'));
      const { build } = await import('esbuild');
      await build({ entryPoints: [path], outfile, bundle: true, platform: 'node', format: 'esm', target: 'node20', logLevel: 'warning' });
      return outfile;
    })();
    compiledBaselines.set(script, compiled);
  }
  return compiled;
}
