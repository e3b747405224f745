// blame, show and stats reconcile what they read: a commit without a ledger
// whose source is already here (the same patch, a pull-request head already
// fetched) gets its ledger before it is shown. Only that quick part runs here:
// no fetch, no search of branches. Reading never fails because of it.
import type { GitOptions } from '../../capture/ledger/git-exec.js';
import type { LedgerLines } from '../ledger-lines.js';

/** True when some commit got a ledger, so the caller reads the ledgers again. */
export async function reconcileOnRead(
  projectDir: string,
  git: GitOptions,
  commits: readonly string[],
  index?: LedgerLines,
): Promise<boolean> {
  if (commits.length === 0) return false;
  try {
    const { reconcile } = await import('./reconcile.js');
    const report = await reconcile({
      projectDir,
      git,
      revisions: commits,
      walk: false,
      limit: commits.length,
      depth: 'quick',
      ...(index ? { index } : {}),
    });
    return report.reconciled.length > 0;
  } catch {
    // What was read stays right without it: those commits show as `unknown`, and `tracer reconcile` reports the failure.
    return false;
  }
}
