import { spawn, type ChildProcess } from 'node:child_process';
import { BIN, cleanEnv, type RunOptions, type RunResult } from '../../helpers/cli.js';
import type { ServiceHandle } from '../../helpers/service.js';

/**
 * Fault injection for the reliability suite: a seeded PRNG whose draws are
 * logged (so a failing round can be replayed with TRACER_FAULT_SEED), a tracer
 * child that can be SIGKILLed mid-run, and "kill after the service has seen its
 * n-th request", which puts kill points inside a transfer rather than around it.
 */

/** `TRACER_SOAK=1` (or `npm run test:soak`): more rounds, more data, a fresh seed per run unless one is given. */
export const SOAK = process.env.TRACER_SOAK === '1';

export function rounds(normal: number, soak: number): number {
  const forced = Number(process.env.TRACER_FAULT_ROUNDS);
  if (Number.isInteger(forced) && forced > 0) return forced;
  return SOAK ? soak : normal;
}

export interface Dice {
  readonly seed: number;
  /** Uniform in [0, 1). */
  next(): number;
  /** Whole number in [min, max], both included. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  /** Notes a decision; printed with the seed when a test fails. */
  note(line: string): void;
  readonly log: readonly string[];
}

/** mulberry32: tiny, fast, and the same sequence on every machine for one seed. */
export function dice(name: string, fallbackSeed: number): Dice {
  const given = process.env.TRACER_FAULT_SEED;
  const seed = given !== undefined && given !== '' ? Number(given) >>> 0 : SOAK ? (Date.now() ^ process.pid) >>> 0 : fallbackSeed;
  let state = seed;
  const log: string[] = [`${name}: seed ${seed} (replay with TRACER_FAULT_SEED=${seed})`];
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    seed,
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)]!,
    note: (line) => log.push(line),
    log,
  };
}

/** Runs `body`; on failure prints the dice log (seed and every kill point) before rethrowing. */
export async function replayable(d: Dice, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    console.error(`\n${d.log.join('\n')}\n`);
    throw error;
  }
}

export interface Running {
  child: ChildProcess;
  /** Resolves when the process has exited (killed or not). */
  result: Promise<RunResult & { signal: NodeJS.Signals | null }>;
  exited(): boolean;
  kill(): Promise<RunResult & { signal: NodeJS.Signals | null }>;
}

/** Like runTracer, but returns at once with a handle that can SIGKILL the child mid-run. */
export function spawnTracer(args: readonly string[], options: RunOptions): Running {
  const env: NodeJS.ProcessEnv = { ...cleanEnv(), TRACER_HOME: options.home, NO_COLOR: '1', ...options.env };
  for (const [key, value] of Object.entries(env)) if (value === undefined) delete env[key];
  const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout!.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr!.on('data', (chunk: Buffer) => err.push(chunk));
  let done = false;
  const result = new Promise<RunResult & { signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      done = true;
      resolve({ code: code ?? -1, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
  return {
    child,
    result,
    exited: () => done,
    kill: () => {
      if (!done) child.kill('SIGKILL');
      return result;
    },
  };
}

/** How many requests the (spawned, log level info) service has logged so far. */
export function requestsSeen(service: ServiceHandle): number {
  return service.output().stdout.split('"msg":"incoming request"').length - 1;
}

/**
 * Waits until the service has logged `count` more requests than `from`, or until
 * `running` exits first. True when the count was reached while the client still ran.
 */
export async function untilRequests(service: ServiceHandle, from: number, count: number, running: Running): Promise<boolean> {
  for (;;) {
    if (requestsSeen(service) - from >= count) return !running.exited();
    if (running.exited()) return false;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

export const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Client environment for fault rounds: a short backoff so a run against a dead
 * service gives up in well under a second instead of retrying for seconds.
 */
export const FAST_RETRY_ENV = { TRACER_HTTP_BACKOFF_MS: '10', TRACER_HTTP_ATTEMPTS: '3' };
