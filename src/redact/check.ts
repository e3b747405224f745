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
  const { redactor, problems } = await buildRedactor(kernel, {
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
    for (const finding of findings) found.push(located(text, finding, findings, linesBefore));
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

function located(text: string, finding: Finding, all: readonly Finding[], linesBefore: number): CheckFinding {
  const lineStart = text.lastIndexOf('\n', finding.start - 1) + 1;
  const newline = text.indexOf('\n', finding.start);
  const lineEnd = newline === -1 ? text.length : newline;
  let line = 1;
  for (let index = text.indexOf('\n'); index !== -1 && index < lineStart; index = text.indexOf('\n', index + 1)) line += 1;
  // Every finding that touches this line is masked, so the preview never shows any secret.
  let masked = '';
  let position = lineStart;
  let at = 0;
  for (const other of [...all].sort((a, b) => a.start - b.start)) {
    if (other.end <= lineStart || other.start >= lineEnd) continue;
    const start = Math.max(other.start, position);
    masked += text.slice(position, start);
    if (other === finding) at = masked.length;
    masked += `[REDACTED:${kindOf(other.rule)}]`;
    position = Math.max(position, Math.min(other.end, lineEnd));
  }
  masked += text.slice(position, lineEnd);
  const from = Math.max(0, at - PREVIEW_CONTEXT);
  const close = masked.indexOf(']', at);
  const to = Math.min(masked.length, (close === -1 ? at : close + 1) + PREVIEW_CONTEXT);
  const preview = `${from > 0 ? '…' : ''}${masked.slice(from, to).replace(/\s+/g, ' ').trim()}${to < masked.length ? '…' : ''}`;
  return { rule: finding.rule, line: linesBefore + line, column: characters(text, lineStart, finding.start) + 1, preview };
}

/** Characters (code points, as an editor counts them) between two offsets: a surrogate pair is one. */
function characters(text: string, from: number, to: number): number {
  let count = to - from;
  for (let index = from; index < to; index += 1) {
    const unit = text.charCodeAt(index);
    const before = index > from ? text.charCodeAt(index - 1) : 0;
    if (unit >= 0xdc00 && unit <= 0xdfff && before >= 0xd800 && before <= 0xdbff) count -= 1;
  }
  return count;
}
