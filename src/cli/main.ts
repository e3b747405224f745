// tracer's entry: bin/tracer.js calls main() with the process's streams,
// environment and folder; the tests call it with their own. Every command line
// goes through the command registry (registry.ts); nothing here reads
// `process`, so a command runs the same in a test's process as in its own.
import type { MainIo } from './context.js';
import { runCommandLine } from './registry.js';

export type { MainIo } from './context.js';

/** Runs one command line; resolves to its exit code. */
export function main(argv: readonly string[], io: MainIo): Promise<number> {
  return runCommandLine(argv, io);
}
