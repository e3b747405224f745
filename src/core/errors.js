/**
 * Every failure a user can hit carries a stable snake_case `code` (clients and
 * scripts branch on it, never on the text) and one sentence that says what is
 * wrong and what to do. Codes are never renamed once released.
 */
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
};
export class TracerError extends Error {
  name = 'TracerError';
  code;
  exitCode;
  plugin;
  hook;
  constructor(code, message, options = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.exitCode = options.exitCode ?? ExitCode.failure;
    this.plugin = options.plugin;
    this.hook = options.hook;
  }
}
export function isTracerError(error) {
  return error instanceof TracerError;
}
