// After `tracer pull` brings ledgers, commits of the current branch that have
// none (a squash or a rebase made by the hosting service's merge button) may
// now have sources: reconcile them (docs/attribution.md). Switched off, they
// are reconciled by the post-merge hook, by blame, show and stats, or by
// `tracer reconcile`.
import { reconcileCommits, type TracerPlugin } from '../plugin/index.js';

/** The newest commits of HEAD looked at after a pull: a pull request's worth of history, many times over. */
const RECENT_COMMITS = 200;

const reconcilePlugin: TracerPlugin = {
  name: 'reconcile',
  apply(kernel) {
    kernel.hooks.afterPull.tapPromise('reconcile', async (result, session) => {
      if (result.family.name !== 'ledgers' || result.inserted === 0 || session.dryRun) return;
      const git = { cwd: session.project.git.worktree, env: kernel.context.env };
      try {
        await reconcileCommits({ projectDir: session.project.dir, git, revisions: ['HEAD'], limit: RECENT_COMMITS, depth: 'full' });
      } catch (error) {
        // The pulled rows are stored whatever happens here; the next pull, or `tracer reconcile`, tries again.
        const reason = (error instanceof Error ? error.message : String(error)).replace(/\.$/, '');
        session.warn({
          code: 'reconcile_failed',
          message: `The pulled ledgers are stored, but reconciling this branch's commits failed: ${reason}. Run tracer reconcile to try again`,
        });
      }
    });
  },
};

export default reconcilePlugin;
