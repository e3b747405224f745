// Every failure a user can hit carries a stable snake_case `code` (clients and
// scripts branch on it, never on the text) and one sentence that says what is
// wrong and what to do. Codes are never renamed once released.

/** Process exit codes, one per failure category, documented in the README. */
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2,
  localState: 3,
  auth: 4,
  network: 5,
  scope: 6,
  validation: 7,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export interface TracerErrorOptions {
  exitCode?: ExitCode;
  cause?: unknown;
  /** Set by the kernel when the error was thrown inside a plugin's tap. */
  plugin?: string;
  hook?: string;
}

export class TracerError extends Error {
  override readonly name = 'TracerError';
  readonly code: string;
  readonly exitCode: ExitCode;
  plugin?: string;
  hook?: string;

  constructor(code: string, message: string, options: TracerErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.exitCode = options.exitCode ?? ExitCode.failure;
    this.plugin = options.plugin;
    this.hook = options.hook;
  }
}

/**
 * Failures a command already printed in its own `--json` answer (push, pull and sync print their report with
 * `"ok": false`): the command base (src/cli/tracer-command.ts) prints `{"ok": false, "error"}` for the others.
 */
const printedAsJson = new WeakSet<object>();

export function markPrintedAsJson(error: unknown): void {
  if (typeof error === 'object' && error !== null) printedAsJson.add(error);
}

export function wasPrintedAsJson(error: unknown): boolean {
  return typeof error === 'object' && error !== null && printedAsJson.has(error);
}

/** A failure as `--json` output says it: `{"code", "message"}` (a failure that is no TracerError is `internal_error`). */
export function errorJson(error: unknown): { code: string; message: string } {
  if (error instanceof TracerError) return { code: error.code, message: error.message };
  // clipanion's: an option's value a command refused (a UsageError), or a line no command takes.
  if (error instanceof Error && USAGE_ERRORS.has(error.name)) return { code: 'invalid_usage', message: error.message };
  return { code: 'internal_error', message: error instanceof Error ? error.message : String(error) };
}

export const USAGE_ERRORS = new Set(['UsageError', 'UnknownSyntaxError', 'AmbiguousSyntaxError']);

export function isTracerError(error: unknown): error is TracerError {
  return error instanceof TracerError;
}

/** A notice that does not stop the run (a fallback taken, a torn line skipped). */
export interface TracerWarning {
  code: string;
  message: string;
  plugin?: string;
}
