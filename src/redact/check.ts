// `tracer redact check` and `tracer redact rules`: the rules capture applies in
// this folder (team rules included), run over a file or stdin, and listed.
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { resolve } from 'node:path';
import { ExitCode, TracerError } from '../core/errors.js';
import type { Kernel } from '../kernel/kernel.js';
import { findGit } from '../store/git.js';
import type { Finding, Redactor } from './engine.js';
import { kindOf } from './placeholder.js';
import { kernelDetectors } from './hooks.js';
import { buildRedactor } from './redactor.js';
import { textRuns } from './stream.js';
import type { RedactionProblem } from './types.js';

export interface CheckFinding {
  rule: string;
  /** 1-based. */
  line: number;
  /** 1-based, in characters of the line. */
  column: number;
  /** The line around the finding, every secret on it masked. */
  preview: string;
}

/** The redactor capture would use here, without placeholders; a refused team file stops the command (`redact_rule_invalid`). */
export async function commandRedactor(
  kernel: Kernel,
  purpose: 'check' | 'store',
): Promise<{ redactor: Redactor; warnings: RedactionProblem[] }> {
  const { home, cwd, env, project } = kernel.context;
  const root = project?.git.worktree ?? findGit(cwd, env)?.worktree;
  const { redactor, problems } = await buildRedactor(kernelDetectors(kernel), {
    purpose,
    home,
    root,
    projectDir: project?.dir,
    env,
    fingerprint: purpose === 'store' ? 'home' : 'none',
  });
  const refused = problems.find((problem) => problem.code === 'redact_rule_invalid');
  if (refused) {
    await redactor.close();
    throw new TracerError('redact_rule_invalid', refused.message.replace(/\.$/, ''), { exitCode: ExitCode.localState });
  }
  return { redactor, warnings: problems };
}

/** Every finding of the input, streamed: a large file is never held whole. */
export async function checkInput(redactor: Redactor, input: Readable): Promise<CheckFinding[]> {
  const found: CheckFinding[] = [];
  for await (const { text, linesBefore } of textRuns(input as AsyncIterable<Uint8Array>)) {
    const findings = await redactor.find(text);
    const run = new LocatedRun(text, findings);
    for (const finding of findings) found.push(run.located(finding, linesBefore));
  }
  return found;
}

export function openInput(path: string | undefined, stdin: Readable & { isTTY?: boolean }, cwd: string): Readable {
  if (path === undefined || path === '-') {
    if (path === undefined && stdin.isTTY) {
      throw new TracerError(
        'no_input',
        'Give a file to check, or pipe text to tracer redact check - (for example git diff --cached | tracer redact check -).',
        {
          exitCode: ExitCode.usage,
        },
      );
    }
    return stdin;
  }
  const stream = createReadStream(resolve(cwd, path));
  stream.on('error', () => undefined); // reported by the read that follows
  return stream;
}

/** The input's read failure (a missing file) as a sentence with a code. */
export function unreadableInput(path: string, error: unknown): TracerError {
  const code = (error as NodeJS.ErrnoException).code;
  const why =
    code === 'ENOENT'
      ? 'does not exist'
      : code === 'EISDIR'
        ? 'is a folder'
        : code === 'EACCES'
          ? 'is not readable'
          : `cannot be read (${code ?? 'error'})`;
  return new TracerError('input_unreadable', `${path} ${why}; give a readable file, or - for stdin.`, { exitCode: ExitCode.usage });
}

const PREVIEW_CONTEXT = 40;

/**
 * Where the findings of one text run are, and their previews. Line numbers come from the run's line
 * starts, found once, and a line's findings from the findings sorted once: a file full of secrets (a
 * printed .env) has a finding on every line, and counting lines or sorting again for each took 28 s
 * over 20,000 of them.
 */
class LocatedRun {
  /** Where each line starts. */
  readonly #lineStarts: number[] = [0];
  /** The findings by where they start, and the furthest any of the first k reaches. */
  readonly #sorted: Finding[];
  readonly #reach: number[];
  /** The line the last finding was on, masked. */
  #line?: MaskedLine;
  /** Characters counted up to the last finding's start, on its line. */
  #cursor = { lineStart: -1, offset: 0, count: 0 };

  constructor(
    private readonly text: string,
    findings: readonly Finding[],
  ) {
    for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) this.#lineStarts.push(index + 1);
    this.#sorted = [...findings].sort((a, b) => a.start - b.start);
    let reach = 0;
    this.#reach = this.#sorted.map((finding) => (reach = Math.max(reach, finding.end)));
  }

  located(finding: Finding, linesBefore: number): CheckFinding {
    const line = lastAtMost(this.#lineStarts, finding.start, (start) => start);
    const { masked, at } = this.#maskedLine(this.#lineStarts[line]!);
    const where = at.get(finding)!;
    const from = Math.max(0, where - PREVIEW_CONTEXT);
    const close = masked.indexOf(']', where);
    const to = Math.min(masked.length, (close === -1 ? where : close + 1) + PREVIEW_CONTEXT);
    const preview = `${from > 0 ? '…' : ''}${masked.slice(from, to).replace(/\s+/g, ' ').trim()}${to < masked.length ? '…' : ''}`;
    return { rule: finding.rule, line: linesBefore + line + 1, column: this.#column(this.#lineStarts[line]!, finding.start), preview };
  }

  /** The line with every finding that touches it masked (so a preview never shows any secret), and where each one's placeholder is; kept for the line's next finding. */
  #maskedLine(lineStart: number): MaskedLine {
    if (this.#line?.start === lineStart) return this.#line;
    const text = this.text;
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline === -1 ? text.length : newline;
    let masked = '';
    let position = lineStart;
    const at = new Map<Finding, number>();
    for (const other of this.#touching(lineStart, lineEnd)) {
      const start = Math.max(other.start, position);
      masked += text.slice(position, start);
      at.set(other, masked.length);
      masked += `[REDACTED:${kindOf(other.rule)}]`;
      position = Math.max(position, Math.min(other.end, lineEnd));
    }
    masked += text.slice(position, lineEnd);
    return (this.#line = { start: lineStart, masked, at });
  }

  /** The 1-based column of `offset` in characters (code points, as an editor counts them: a surrogate pair is one), counted on from the line's last finding. */
  #column(lineStart: number, offset: number): number {
    const text = this.text;
    let cursor = this.#cursor;
    if (cursor.lineStart !== lineStart || cursor.offset > offset) cursor = { lineStart, offset: lineStart, count: 0 };
    let count = cursor.count + (offset - cursor.offset);
    for (let index = cursor.offset; index < offset; index += 1) {
      const unit = text.charCodeAt(index);
      const before = index > lineStart ? text.charCodeAt(index - 1) : 0;
      if (unit >= 0xdc00 && unit <= 0xdfff && before >= 0xd800 && before <= 0xdbff) count -= 1;
    }
    this.#cursor = { lineStart, offset, count };
    return count + 1;
  }

  /** The findings that overlap `[lineStart, lineEnd)`, in the order they start (one may start on an earlier line). */
  #touching(lineStart: number, lineEnd: number): Finding[] {
    const sorted = this.#sorted;
    let first = lastAtMost(sorted, lineStart - 1, (finding) => finding.start) + 1;
    while (first > 0 && this.#reach[first - 1]! > lineStart) first -= 1;
    const touching: Finding[] = [];
    for (let index = first; index < sorted.length && sorted[index]!.start < lineEnd; index += 1) {
      if (sorted[index]!.end > lineStart) touching.push(sorted[index]!);
    }
    return touching;
  }
}

/** The last index whose key is at most `value` in a list sorted by key, or -1. */
function lastAtMost<T>(list: readonly T[], value: number, key: (item: T) => number): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (key(list[middle]!) <= value) low = middle + 1;
    else high = middle;
  }
  return low - 1;
}

interface MaskedLine {
  start: number;
  masked: string;
  /** Where each finding's placeholder starts in `masked`. */
  at: Map<Finding, number>;
}
