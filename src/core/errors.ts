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

export function isTracerError(error: unknown): error is TracerError {
  return error instanceof TracerError;
}

/** A notice that does not stop the run (a fallback taken, a torn line skipped). */
export interface TracerWarning {
  code: string;
  message: string;
  plugin?: string;
}
