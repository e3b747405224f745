import * as assert from 'uvu/assert';
import { TracerError, type ExitCode } from '../../src/core/errors.js';

/** `run` throws a TracerError with this code (and exit code, when given); returns it for further checks. */
export function expectCode(run: () => unknown, code: string, exitCode?: ExitCode): TracerError {
  try {
    run();
  } catch (error) {
    return checked(error, code, exitCode);
  }
  return assert.unreachable(`expected ${code}`) as never;
}

/** The same for a promise that must reject. */
export async function expectRejection(run: () => Promise<unknown>, code: string, exitCode?: ExitCode): Promise<TracerError> {
  try {
    await run();
  } catch (error) {
    return checked(error, code, exitCode);
  }
  return assert.unreachable(`expected ${code}`) as never;
}

function checked(error: unknown, code: string, exitCode: ExitCode | undefined): TracerError {
  assert.instance(error, TracerError);
  assert.is((error as TracerError).code, code, (error as Error).message);
  if (exitCode !== undefined) assert.is((error as TracerError).exitCode, exitCode);
  return error as TracerError;
}

/** The TracerError a promise rejects with, whatever its code, for checks of its own. */
export async function rejectionOf(promise: Promise<unknown>): Promise<TracerError> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, TracerError);
    return error as TracerError;
  }
  return assert.unreachable('expected a rejection') as never;
}
