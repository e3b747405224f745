// blame, show and stats reconcile what they read: a commit without a ledger
// whose source is already here (the same patch, a pull-request head already
// fetched) gets its ledger before it is shown. Only that quick part runs here:
// no fetch, no search of branches. Reading never fails because of it.
import type { GitOptions } from '../../capture/ledger/git-exec.js';
import type { LockHolder } from '../../store/file-lock.js';
import type { LedgerLines } from '../ledger-lines.js';

/** Long enough for a hook's run in the background (a fetch times out after 5 s), short enough that a blame never seems stuck. */
const ON_READ_WAIT_MS = 15_000;

let writes = true;

/** `tracer mcp` promises never to write the store: in its process, reads answer from the ledgers as they stand (`tracer reconcile` writes the rest). */
export function readOnlyProcess(): void {
  writes = false;
}

export interface OnReadOptions {
  /** ledgers.jsonl as the caller read it. */
  index?: LedgerLines;
  /** Told once a wait for the background reconcile lasts, to say so. */
  onWait?: (holder: LockHolder) => void;
}

/** True when some of `commits` (which had no ledger) has one now, so the caller reads the ledgers again. */
export async function reconcileOnRead(
  projectDir: string,
  git: GitOptions,
  commits: readonly string[],
  { index, onWait }: OnReadOptions = {},
): Promise<boolean> {
  if (commits.length === 0 || !writes) return false;
  try {
    const { reconcile } = await import('./reconcile.js');
    const report = await reconcile({
      projectDir,
      git,
      revisions: commits,
      walk: false,
      limit: commits.length,
      depth: 'quick',
      // A post-merge hook's run in the background is finishing this very branch: what it writes is what this read should show.
      waitMs: ON_READ_WAIT_MS,
      ...(index ? { index } : {}),
      ...(onWait ? { onWait } : {}),
    });
    if (report.reconciled.length > 0) return true;
    // The hook's run in the background, which this one waited for, may have written them instead.
    const { LedgerLines } = await import('../ledger-lines.js');
    const now = await LedgerLines.read(projectDir);
    return commits.some((commit) => now.has(commit));
  } catch {
    // What was read stays right without it: those commits show as `unknown`, and `tracer reconcile` reports the failure.
    return false;
  }
}
