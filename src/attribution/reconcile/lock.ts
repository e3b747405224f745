// One reconcile writes at a time in a project: the post-merge hook hands what
// it cannot finish within its bounds to a run in the background, and a blame
// or a `tracer pull` started meanwhile must neither write the same ledger
// again nor read the branch before that run is done. They wait for it.
//
// The hand-over is a file, reconcile.pending, naming the background run's
// pid: written by the hook before `git pull` returns, so a blame started the
// next moment already sees it, before that run has even started and taken
// the lock; removed by that run when done, ignored once its process is gone.
//
// The lock is a lock folder (store/file-lock.ts): a holder that was killed
// leaves a lock that goes stale after seconds instead of blocking every later
// reconcile, with no pid to check (the hand-over's pid is only waited on for
// minutes, and not at all once that process is gone).
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lockFolder, type Release } from '../../store/file-lock.js';

export const RECONCILE_LOCK = 'reconcile.lock';
export const RECONCILE_PENDING = 'reconcile.pending';
const POLL_MS = 50;
/** A hand-over older than this is not waited for, whatever process has that pid now. */
const HAND_OFF_MAX_AGE_MS = 10 * 60_000;

/**
 * Takes the project's reconcile lock, waiting up to `waitMs` for a holder to
 * finish; undefined when it is still held then (0: do not wait at all).
 */
export async function lockReconcile(projectDir: string, waitMs: number): Promise<Release | undefined> {
  const until = Date.now() + waitMs;
  while (handedOffElsewhere(projectDir)) {
    if (Date.now() >= until) return undefined;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  // Losing the lock while holding it (its folder removed by hand) costs at worst a ledger row written twice, which every reader takes once.
  return lockFolder(join(projectDir, RECONCILE_LOCK), { waitMs: Math.max(0, until - Date.now()), pollMs: POLL_MS });
}

/** The hook's note that the run `pid` in the background reconciles this project now. */
export function markHandOff(projectDir: string, pid: number): void {
  writeFileSync(join(projectDir, RECONCILE_PENDING), `${JSON.stringify({ pid, ts: Date.now() })}\n`, { mode: 0o600 });
}

/** The background run, done (or failed): later reconciles no longer wait for it. */
export function clearHandOff(projectDir: string): void {
  if (handOffPid(projectDir) === process.pid) rmSync(join(projectDir, RECONCILE_PENDING), { force: true });
}

/** A run handed work by the hook, other than this process, is still alive. */
function handedOffElsewhere(projectDir: string): boolean {
  const pid = handOffPid(projectDir);
  if (pid === undefined || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, someone else's. ESRCH: gone, its note is stale.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function handOffPid(projectDir: string): number | undefined {
  try {
    const { pid, ts } = JSON.parse(readFileSync(join(projectDir, RECONCILE_PENDING), 'utf8')) as { pid?: unknown; ts?: unknown };
    if (typeof ts !== 'number' || Date.now() - ts > HAND_OFF_MAX_AGE_MS) return undefined;
    return Number.isSafeInteger(pid) && (pid as number) > 0 ? (pid as number) : undefined;
  } catch {
    // No note, or one cut short by a crash: nothing to wait for.
    return undefined;
  }
}
