// `tracer blame` is measured against git blame itself (BENCHMARKS.md, workload
// 8): loading clipanion and booting the plugin kernel would cost more than
// the rest of its own work. A plain command line (a path and the documented
// options, spelled out) runs from main.ts without them, as `tracer hook` and
// a bare push do; anything else (--help, a bad --line, an unknown flag) goes
// through the clipanion command, which also reports usage errors.
import type { Writable } from 'node:stream';
import { reportError } from '../cli/report.js';
import { tracerHome } from '../store/home.js';
import { resolveProject } from '../store/project.js';
import type { BlameQuery } from './blame.js';

export interface PlainBlame {
  path: string;
  rev?: string;
  lines?: { start: number; end: number };
  options: string[];
  json: boolean;
}

export interface PlainIo {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdout: Writable;
  stderr: Writable;
}

/** The exit code, or undefined when the command line is not a plain one. */
export async function runPlainBlame(argv: readonly string[], io: PlainIo): Promise<number | undefined> {
  const plain = readCommandLine(argv);
  if (!plain) return undefined;
  try {
    const project = resolveProject({ cwd: io.cwd, home: tracerHome(io.env), env: io.env });
    await printBlame({ projectDir: project.dir, git: { cwd: io.cwd, env: io.env }, ...plain }, plain.json, io.stdout);
    return 0;
  } catch (error) {
    return reportError(error, io.stderr, io.env);
  }
}

/** Shared by the fast path and the clipanion command. */
export async function printBlame(query: BlameQuery, json: boolean, stdout: Writable): Promise<void> {
  const { blameFile } = await import('./blame.js');
  const { report, details } = await blameFile(query);
  if (json) {
    stdout.write(`${JSON.stringify(report)}\n`);
    return;
  }
  const { formatBlame } = await import('./format-blame.js');
  stdout.write(formatBlame(report, details));
}

/** `blame <path> [--rev R] [--line A-B] [-w] [-M] [-C] [--json]`, or undefined for anything else. */
export function readCommandLine(argv: readonly string[]): PlainBlame | undefined {
  if (argv[0] !== 'blame') return undefined;
  let path: string | undefined;
  let rev: string | undefined;
  let lines: PlainBlame['lines'];
  let json = false;
  const flags = new Set<string>();
  for (let index = 1; index < argv.length; index += 1) {
    const arg = argv[index]!;
    const equals = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = equals === -1 ? arg : arg.slice(0, equals);
    const value = () => (equals === -1 ? argv[++index] : arg.slice(equals + 1));
    if (flag === '--rev') {
      rev = value();
      if (rev === undefined || rev === '' || rev.startsWith('-')) return undefined;
    } else if (flag === '--line' || flag === '-L') {
      lines = parseLineRange(value() ?? '');
      if (!lines) return undefined;
    } else if (flag === '-w' || flag === '-M' || flag === '-C') flags.add(flag);
    else if (flag === '--json') json = true;
    else if (!arg.startsWith('-') && path === undefined) path = arg;
    else return undefined;
  }
  if (path === undefined) return undefined;
  // The order git blame gets them in, as the clipanion command passes them.
  const options = ['-w', '-M', '-C'].filter((flag) => flags.has(flag));
  return { path, ...(rev === undefined ? {} : { rev }), ...(lines === undefined ? {} : { lines }), options, json };
}

/** `A-B`, `A,B` or `A`, with 1 ≤ A ≤ B; undefined otherwise. */
export function parseLineRange(text: string): { start: number; end: number } | undefined {
  const match = /^(\d+)(?:[-,](\d+))?$/.exec(text.trim());
  if (!match) return undefined;
  const start = Number(match[1]);
  const end = match[2] === undefined ? start : Number(match[2]);
  return start >= 1 && end >= start ? { start, end } : undefined;
}
