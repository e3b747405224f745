// A hook must never fail the agent, so its failures go to `hook-errors.log` (one
// JSON object a line) in the project folder, or under $TRACER_HOME when there is
// no project. The log never holds payload text: a prompt must not leak into it.
import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const HOOK_ERROR_LOG = 'hook-errors.log';
/** A misconfigured hook fails on every tool use; past this the log is rotated once. */
const ROTATE_AT_BYTES = 1024 * 1024;

export interface HookFailure {
  code: string;
  message: string;
}

export function logHookFailure(dir: string, context: { agent: string; event: string }, failure: HookFailure): void {
  const path = join(dir, HOOK_ERROR_LOG);
  const line = `${JSON.stringify({ ts: new Date().toISOString(), agent: context.agent, event: context.event, code: failure.code, message: failure.message })}\n`;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (sizeOf(path) > ROTATE_AT_BYTES) renameSync(path, `${path}.1`);
    appendFileSync(path, line, { mode: 0o644 });
  } catch {
    // Nowhere left to report to; the agent must still carry on.
  }
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
