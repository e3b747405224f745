import * as assert from 'uvu/assert';
import type { RunResult } from '../helpers/cli.js';

/** The bad-input contract: non-zero, nothing on stdout, exactly one line on stderr, one sentence ending in `(<code>)`. */
export function assertOneLineError(result: RunResult, code: string, exitCode?: number): void {
  const context = `stdout: ${result.stdout}\nstderr: ${result.stderr}`;
  assert.is.not(result.code, 0, `expected a failure\n${context}`);
  if (exitCode !== undefined) assert.is(result.code, exitCode, context);
  const lines = result.stderr.split('\n').filter((line) => line !== '');
  assert.is(lines.length, 1, `expected one line on stderr\n${context}`);
  assert.ok(lines[0]!.startsWith('tracer: '), context);
  assert.ok(lines[0]!.endsWith(`(${code})`), `expected code ${code}\n${context}`);
  // One sentence: what is wrong and how to fix it, not a second sentence after a full stop.
  const message = lines[0]!.slice('tracer: '.length, -` (${code})`.length);
  assert.not.match(message, /[.!?]["')]? +[A-Z]/, `expected one sentence\n${context}`);
}

export function assertOk(result: RunResult): void {
  assert.is(result.code, 0, `expected success\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
}

/** Everything a run printed, for "never printed" checks. */
export const printed = (result: RunResult) => result.stdout + result.stderr;
