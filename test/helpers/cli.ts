import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';

/**
 * Runs the built binary (bin/tracer.js → dist/) the way a user or an agent hook
 * does: a separate process, its own TRACER_HOME, no colour. `npm test` builds
 * dist/ first (pretest).
 */
export const BIN = fileURLToPath(new URL('../../bin/tracer.js', import.meta.url));

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd: string;
  home: string;
  env?: Record<string, string | undefined>;
  input?: string | Buffer;
}

export function runTracer(args: readonly string[], options: RunOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const env = tracerEnv(options);
    const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ code: code ?? -1, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }),
    );
    child.stdin.end(options.input ?? '');
  });
}

/**
 * Runs a command line in this process: main() from the sources with the test's
 * own streams, environment and folder, as the binary runs it in its own. For the
 * tests of what commands do; where the process is the point (the binary, an
 * agent's or git's hook, a kill), runTracer.
 */
export async function runMain(args: readonly string[], options: RunOptions): Promise<RunResult> {
  const stdout = collected();
  const stderr = collected();
  // Bytes, as a process's stdin gives them.
  const stdin = Readable.from(options.input === undefined ? [] : [Buffer.from(options.input)]);
  const code = await main(args, { stdin, stdout: stdout.stream, stderr: stderr.stream, env: tracerEnv(options), cwd: options.cwd });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

function collected() {
  const chunks: Buffer[] = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

function tracerEnv(options: RunOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...cleanEnv(), TRACER_HOME: options.home, NO_COLOR: '1', ...options.env };
  for (const [key, value] of Object.entries(env)) if (value === undefined) delete env[key];
  return env;
}

/** The environment without anything that would point tracer or git elsewhere. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    if (key.startsWith('TRACER_') || key.startsWith('GIT_') || key === 'FORCE_COLOR') delete env[key];
  }
  return env;
}

/**
 * A fresh folder under the system temp dir; `cleanup()` removes every one made.
 * Call it inside a test or `test.before`, never at a module's top level: uvu
 * imports every test file before running any, and another suite's cleanup()
 * would remove it.
 */
const made: string[] = [];
export function tempDir(prefix = 'tracer-test-'): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

/**
 * Waits until what git's hooks spooled in `home` is folded (with every agent event spooled before it) and no fold
 * holds the lock. git's hooks spool what git said and fold it in the background (src/capture/ledger/spooled-git.ts);
 * every tracer command folds first, and a test that reads tracer's files directly after git waits for that fold, as
 * such a command would (and before it removes the folder the fold writes into). A git entry that stays spooled fails
 * the test; agent events a test spooled without a fold are left alone.
 */
export function settleSpool(home: string, timeoutMs = 120_000): void {
  const dir = join(home, 'spool');
  const until = Date.now() + timeoutMs;
  for (;;) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    if (!names.some((name) => name.endsWith('.git.event') || name === '.fold.lock')) return;
    if (Date.now() > until) throw new Error(`the spool of ${home} was not folded within ${timeoutMs} ms: ${names.join(', ')}`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
  }
}

export function cleanup(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  throwawayHome = undefined;
}

/**
 * Runs git as a test author. Once `tracer init` has installed its git hooks, a
 * commit runs tracer: TRACER_HOME points at a throwaway home so that it can never
 * write into the real ~/.tracer (tests that want the hooks' output pass their own
 * home through their own git call).
 */
export function git(cwd: string, ...args: string[]): string {
  return gitWith({}, cwd, ...args);
}

/** git() with more environment, e.g. GIT_COMMITTER_DATE for commits that must not share a second. */
export function gitWith(env: Record<string, string>, cwd: string, ...args: string[]): string {
  const home = env.TRACER_HOME ?? hookHome();
  const output = execFileSync('git', args, {
    cwd,
    env: {
      ...cleanEnv(),
      TRACER_HOME: home,
      GIT_AUTHOR_NAME: 'Test',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 'Test',
      GIT_COMMITTER_EMAIL: 't@example.com',
      ...env,
    },
    encoding: 'utf8',
  }).trim();
  settleSpool(home);
  return output;
}

let throwawayHome: string | undefined;
function hookHome(): string {
  return (throwawayHome ??= join(tempDir('tracer-hook-home-'), 'home'));
}

/** A real git repository with one commit, in a fresh temp folder. */
export function tempRepo(): string {
  const dir = tempDir('tracer-repo-');
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'commit', '-q', '--allow-empty', '-m', 'initial');
  return dir;
}

/** A home, a repository, and a `tracer` bound to both: `run` in this process (runMain), `spawn` the binary (runTracer). */
export function sandbox() {
  const home = join(tempDir('tracer-home-'), 'home');
  const repo = tempRepo();
  const run = (args: readonly string[], options: Partial<RunOptions> = {}) => runMain(args, { cwd: repo, home, ...options });
  const spawn = (args: readonly string[], options: Partial<RunOptions> = {}) => runTracer(args, { cwd: repo, home, ...options });
  return { home, repo, run, spawn };
}
