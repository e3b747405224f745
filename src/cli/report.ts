import type { Writable } from 'node:stream';
import { ExitCode, TracerError, USAGE_ERRORS, type TracerWarning } from '../core/errors.js';

/** Runs a command's work and reports it: the run's warnings, then a failure as one line with its exit code. */
export async function runReported(
  io: { warnings: TracerWarning[]; stderr: Writable; env: NodeJS.ProcessEnv },
  run: () => Promise<number | void>,
): Promise<number> {
  try {
    const code = (await run()) ?? 0;
    reportWarnings(io.warnings, io.stderr);
    return code;
  } catch (error) {
    reportWarnings(io.warnings, io.stderr);
    return reportError(error, io.stderr, io.env);
  }
}

/**
 * How failures reach the terminal: one line on stderr, the sentence first, the
 * stable code last, e.g. `tracer: There is no remote named "x"; ... (remote_not_found)`.
 */
export function reportError(error: unknown, stderr: Writable, env: NodeJS.ProcessEnv): number {
  if (error instanceof TracerError) {
    stderr.write(`tracer: ${error.message} (${error.code})\n`);
    if (env.TRACER_DEBUG && error.plugin) stderr.write(`  in plugin ${error.plugin}, hook ${error.hook}\n`);
    if (env.TRACER_DEBUG && error.cause instanceof Error) stderr.write(`${error.cause.stack}\n`);
    return error.exitCode;
  }
  if (isClipanionUsageError(error)) {
    stderr.write(`tracer: ${usageSentence(error)} (invalid_usage)\n`);
    return ExitCode.usage;
  }
  const message = error instanceof Error ? error.message : String(error);
  stderr.write(`tracer: unexpected failure: ${message}; run again with TRACER_DEBUG=1 for details and report it. (internal_error)\n`);
  if (env.TRACER_DEBUG && error instanceof Error) stderr.write(`${error.stack}\n`);
  return ExitCode.failure;
}

/** Prints the notices and empties the list: a notice is printed once, whoever reports the run last. */
export function reportWarnings(warnings: TracerWarning[], stderr: Writable): void {
  for (const warning of warnings.splice(0)) stderr.write(`tracer: warning: ${warning.message} (${warning.code})\n`);
}

function isClipanionUsageError(error: unknown): error is Error & { name: string } {
  return error instanceof Error && USAGE_ERRORS.has(error.name);
}

function usageSentence(error: Error): string {
  const lines = error.message.split('\n');
  const first = lines.find((line) => line.trim() !== '')?.trim() ?? 'Invalid command line';
  if (/did you mean one of/i.test(first)) return unknownCommand(lines);
  const suggestion = /did you mean/i.test(first) ? lines.find((line) => line.trim().startsWith('$ '))?.trim() : undefined;
  const sentence = first.replace(/[.:;]\s*$/, '');
  // One sentence, as every error is: what is wrong, then what to do.
  return suggestion
    ? `${sentence} (perhaps ${suggestion.slice(2)}); tracer --help lists every command.`
    : `${sentence}; run tracer --help, or tracer <command> --help, for the usage.`;
}

/**
 * clipanion answers a first word it does not know with every command it has, as
 * "did you mean one of: 0. tracer push ...": say which word is unknown, the closest
 * command, and the whole list.
 */
function unknownCommand(lines: readonly string[]): string {
  const typed =
    lines
      .find((line) => line.startsWith('While running '))
      ?.slice('While running '.length)
      .trim() ?? '';
  const commands = [
    ...new Set(
      lines
        // "0. tracer remote add [--token #0] <name> <url>": the words before the first option or argument.
        .map((line) => /^\s*\d+\. tracer ([a-z][a-z-]*(?: [a-z][a-z-]*)*)/.exec(line)?.[1])
        .filter((command): command is string => command !== undefined && !command.startsWith('-')),
    ),
  ];
  const word = typed.split(' ')[0] ?? '';
  // A command that exists, given arguments none of its forms takes: say its forms.
  if (commands.length > 0 && commands.every((command) => command.split(' ')[0] === word)) {
    const forms = new Set(
      lines.map((line) => /^\s*\d+\. (tracer .*)$/.exec(line)?.[1]).filter((form): form is string => form !== undefined),
    );
    return `tracer ${word} does not take "${typed.split(' ').slice(1).join(' ')}": it takes ${[...forms].join(', or ')}; run tracer ${word} --help for the usage.`;
  }
  const closest = [...commands].sort((a, b) => editDistance(word, a.split(' ')[0]!) - editDistance(word, b.split(' ')[0]!))[0];
  const near = closest && editDistance(word, closest.split(' ')[0]!) <= Math.max(2, word.length / 3) ? ` (perhaps tracer ${closest})` : '';
  return `"${word}" is not a tracer command${near}; the commands are ${commands.join(', ')}, and tracer --help says what each does.`;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
