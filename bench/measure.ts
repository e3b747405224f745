// Timing and memory of child processes. Peak memory comes from the OS
// (GNU time's "Maximum resident set size", i.e. wait4's ru_maxrss), never from
// inside the measured process; wall time is taken around the spawn.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

export interface Measured {
  wallMs: number;
  /** Peak resident set size in KiB, when GNU time is available. */
  maxRssKb?: number;
  /** User and system CPU time of the process and its children, in ms, when GNU time is available: less moved by the machine's load than wall time. */
  cpuMs?: number;
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunSpec {
  command: string;
  args: readonly string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  input?: string | Buffer;
}

export const GNU_TIME = '/usr/bin/time';
export const hasGnuTime = () => existsSync(GNU_TIME);

export async function measure(spec: RunSpec, options: { memory?: boolean } = {}): Promise<Measured> {
  const withTime = options.memory && hasGnuTime();
  const [command, args] = withTime ? [GNU_TIME, ['-v', spec.command, ...spec.args]] : [spec.command, [...spec.args]];
  const started = process.hrtime.bigint();
  const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(command, args, { cwd: spec.cwd, env: spec.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (exit) =>
      resolve({ code: exit ?? -1, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }),
    );
    child.stdin.end(spec.input ?? '');
  });
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (!withTime) return { wallMs, code, stdout, stderr };
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
  const user = /User time \(seconds\): ([\d.]+)/.exec(stderr);
  const system = /System time \(seconds\): ([\d.]+)/.exec(stderr);
  const cut = stderr.lastIndexOf('\tCommand being timed:');
  return {
    wallMs,
    code,
    stdout,
    stderr: cut >= 0 ? stderr.slice(0, cut) : stderr,
    maxRssKb: rss ? Number(rss[1]) : undefined,
    cpuMs: user && system ? (Number(user[1]) + Number(system[1])) * 1000 : undefined,
  };
}

/** Fails loudly: a benchmark whose command failed measures nothing. */
export function expectOk(result: Measured, what: string): Measured {
  if (result.code !== 0) throw new Error(`${what} exited ${result.code}:\n${result.stdout.slice(-2000)}\n${result.stderr.slice(-2000)}`);
  return result;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export const round = (value: number, digits = 2) => Number(value.toFixed(digits));
export const mib = (kb: number | undefined) => (kb === undefined ? undefined : round(kb / 1024, 1));
