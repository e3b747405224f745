import type { Writable } from 'node:stream';
import { ExitCode, TracerError, type TracerWarning } from '../core/errors.js';
import type { Kernel } from '../kernel/kernel.js';

/** Runs a command's work and reports it: the kernel's warnings, then a failure as one line with its exit code. */
export async function runReported(kernel: Kernel, stderr: Writable, run: () => Promise<number | void>): Promise<number> {
  try {
    const code = (await run()) ?? 0;
    reportWarnings(kernel.warnings, stderr);
    return code;
  } catch (error) {
    reportWarnings(kernel.warnings, stderr);
    return reportError(error, stderr, kernel.context.env);
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

export function reportWarnings(warnings: readonly TracerWarning[], stderr: Writable): void {
  for (const warning of warnings) stderr.write(`tracer: warning: ${warning.message} (${warning.code})\n`);
}

function isClipanionUsageError(error: unknown): error is Error & { name: string } {
  return error instanceof Error && ['UsageError', 'UnknownSyntaxError', 'AmbiguousSyntaxError'].includes(error.name);
}

function usageSentence(error: Error): string {
  const first =
    error.message
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? 'Invalid command line';
  const suggestion = /did you mean/i.test(first)
    ? error.message
        .split('\n')
        .find((line) => line.trim().startsWith('$ '))
        ?.trim()
    : undefined;
  const sentence = first.replace(/[.:;]\s*$/, '');
  return suggestion
    ? `${sentence} ${suggestion.slice(2)}? Run tracer --help for every command.`
    : `${sentence}. Run tracer --help, or tracer <command> --help, for the usage.`;
}
