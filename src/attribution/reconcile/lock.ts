// One reconcile writes at a time in a project: the post-merge hook hands what
// it cannot finish within its bounds to a run in the background, and a blame
// or a `tracer pull` started meanwhile must neither write the same ledger
// again nor read the branch before that run is done. They wait for it.
//
// The hand-over is a file, reconcile.pending, naming the background run's
// process (pid and start time, as a lock's holder is named): written before
// `git pull` returns, so a blame started the next moment already sees it,
// before that run has even started and taken the lock; removed by that run
// when done, ignored once its process is gone (killed: at once).
//
// The lock is store/file-lock.ts's: a holder that was killed is taken over by
// the next reconcile at once.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { holderState, processRecord, takeLock, type LockHolder, type Release } from '../../store/file-lock.js';

export const RECONCILE_LOCK = 'reconcile.lock';
export const RECONCILE_PENDING = 'reconcile.pending';
const POLL_MS = 50;
/** A hand-over older than this is not waited for, whatever process has that pid now. */
const HAND_OFF_MAX_AGE_MS = 10 * 60_000;

/**
 * Takes the project's reconcile lock, waiting up to `waitMs` for a holder to
 * finish; undefined when it is still held then (0: do not wait at all).
 */
export async function lockReconcile(
  projectDir: string,
  waitMs: number,
  onSlowHolder?: (holder: LockHolder) => void,
): Promise<Release | undefined> {
  const until = Date.now() + waitMs;
  while (handedOffElsewhere(projectDir)) {
    if (Date.now() >= until) return undefined;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  // Losing the lock while holding it (its folder removed by hand) costs at worst a ledger row written twice, which every reader takes once.
  return takeLock(join(projectDir, RECONCILE_LOCK), {
    waitMs: Math.max(0, until - Date.now()),
    pollMs: POLL_MS,
    purpose: 'the background reconcile',
    ...(onSlowHolder ? { onSlowHolder } : {}),
  });
}

/** The hook's note that the run `pid` in the background reconciles this project now. */
export function markHandOff(projectDir: string, pid: number): void {
  writeFileSync(join(projectDir, RECONCILE_PENDING), `${JSON.stringify({ ...processRecord(pid), ts: Date.now() })}\n`, { mode: 0o600 });
}

/** The background run, done (or failed): later reconciles no longer wait for it. */
export function clearHandOff(projectDir: string): void {
  if (handOff(projectDir)?.pid === process.pid) rmSync(join(projectDir, RECONCILE_PENDING), { force: true });
}

/** A run handed work by the hook, other than this process, is still alive. */
function handedOffElsewhere(projectDir: string): boolean {
  const run = handOff(projectDir);
  if (run === undefined || run.pid === process.pid) return false;
  // Killed, or its pid since taken by another process: nothing to wait for. Another host's cannot be asked: its age bounds it.
  return holderState(run) !== 'dead';
}

function handOff(projectDir: string): Pick<LockHolder, 'pid' | 'start' | 'boot' | 'host'> | undefined {
  try {
    const run = JSON.parse(readFileSync(join(projectDir, RECONCILE_PENDING), 'utf8')) as Partial<LockHolder>;
    if (typeof run.ts !== 'number' || Date.now() - run.ts > HAND_OFF_MAX_AGE_MS) return undefined;
    if (!Number.isSafeInteger(run.pid) || (run.pid as number) <= 0) return undefined;
    // A note of an older tracer has no host: this one's.
    return { ...run, pid: run.pid as number, host: typeof run.host === 'string' ? run.host : processRecord().host };
  } catch {
    // No note, or one cut short by a crash: nothing to wait for.
    return undefined;
  }
}
