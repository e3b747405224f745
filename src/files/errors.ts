import { ExitCode, TracerError } from '../core/errors.js';

/**
 * What a failed file operation tells the user: `state_unwritable` and
 * `state_unreadable`, one sentence naming the path, the reason in words and the
 * fix. Every writer and reader of tracer's own files reports through these, so a
 * full disk reads the same whichever file hit it.
 */
export function errnoCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : undefined;
}

export function unwritable(path: string, error: unknown): TracerError {
  if (error instanceof TracerError) return error;
  const code = errnoCode(error);
  const why =
    code === 'ENOSPC'
      ? 'the disk is full'
      : code === 'EROFS'
        ? 'the file system is read-only'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : (code ?? (error as Error).message);
  const fix = code === 'ENOSPC' ? 'Free some space on that disk' : 'Make its folder writable';
  return new TracerError(
    'state_unwritable',
    `Cannot write ${path}: ${why}. ${fix} (or set TRACER_HOME to a folder that can take it) and run the command again.`,
    {
      exitCode: ExitCode.localState,
      cause: error,
    },
  );
}

export function unreadable(path: string, error: unknown): TracerError {
  if (error instanceof TracerError) return error;
  return new TracerError(
    'state_unreadable',
    `Cannot read ${path} (${errnoCode(error) ?? (error as Error).message}); check its permissions and run the command again.`,
    {
      exitCode: ExitCode.localState,
      cause: error,
    },
  );
}
