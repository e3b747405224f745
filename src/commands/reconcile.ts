import { Command, Option } from 'clipanion';
import * as t from 'typanion';
import { TracerCommand } from '../cli/tracer-command.js';

export class ReconcileCommand extends TracerCommand {
  static override paths = [['reconcile']];
  static override usage = Command.Usage({
    category: 'Attribution',
    description: 'Give commits made by a merge button (squash, rebase, cherry-pick) the attribution of the commits they came from',
    details: `
      A squash, a rebase or a cherry-pick made on the hosting service lands commits that tracer never saw being made, so they have no ledger. For each commit of the range that has none, it finds the commits it came from and writes its ledger, git note and commit link from theirs:

      - the same change: \`git patch-id --stable\` equals that of a commit with a ledger (rebase, cherry-pick, "rebase and merge");
      - the pull request the message names (\`(#N)\`, \`Merge pull request #N\`, GitLab's \`See merge request !N\`), read from \`refs/pull/N/head\` or \`refs/merge-requests/N/head\`, fetched quietly into \`refs/tracer/\` when missing;
      - a local branch whose combined change equals the commit's.

      Each line the commit added is carried back through the diffs to the branch commit that wrote it, and takes what that commit's ledger says of it: agent, model and conversation, or a person. Lines from a branch commit without a ledger are \`unknown\`. A commit with no source stays as it is; merges are left out (their branch keeps its commits and ledgers).

      The range defaults to the newest 200 commits of HEAD. The git hook that \`tracer init\` installs runs it after every \`git pull\` (\`--post-merge\`: ORIG_HEAD..HEAD, silent, never failing the pull; it does up to 20 commits that need no fetch before the pull returns and leaves the rest to a run in the background, which reconciles of the same project wait for), \`tracer pull\` runs it when ledgers arrive, and blame, show and stats do the quick part (same patch, request heads already here) on what they read. The result is the same bytes on every machine. See docs/attribution.md.

      With --json it prints \`{"dry_run", "examined", "reconciled": [{"commit", "method", "sources", "without_ledger", "lines", "ledger_sha", "written"}], "without_source"}\`.
    `,
    examples: [
      ['Reconcile the newest commits of this branch', '$0 reconcile'],
      ['What a pull brought, without writing anything', '$0 reconcile ORIG_HEAD..HEAD --dry-run'],
      ['One squash commit, as JSON', '$0 reconcile 3f2a1b4c^! --json'],
    ],
  });

  range = Option.String({ name: 'range', required: false });
  dryRun = Option.Boolean('--dry-run', false, { description: 'Say what would be written, write nothing' });
  json = Option.Boolean('--json', false, { description: 'Print one machine-readable object on stdout' });
  limit = Option.String('--limit', {
    description: 'Look at no more than this many commits of the range, newest first (default 200)',
    validator: t.cascade(t.isNumber(), [t.isInteger(), t.isInInclusiveRange(1, 100_000)]),
  });
  postMerge = Option.Boolean('--post-merge', false, {
    description:
      "What git's post-merge hook runs: ORIG_HEAD..HEAD (or the range given), printing nothing and never failing (errors go to hook-errors.log)",
  });

  async run() {
    const { cwd, env } = this.context;
    if (this.postMerge) {
      const { runPostMerge } = await import('../capture/ledger/git-hook-entry.js');
      return runPostMerge({ cwd, env, stdout: this.context.stdout, stderr: this.context.stderr, verbose: false }, this.range);
    }
    const project = this.project();
    const { reconcileRange } = await import('../attribution/reconcile/command.js');
    const report = await reconcileRange({
      projectDir: project.dir,
      git: { cwd, env },
      range: this.range,
      limit: this.limit,
      dryRun: this.dryRun,
      onWait: this.waitNotice(),
      onProblem: (problem) => this.warn(problem),
    });
    if (this.json) {
      this.printJson(report);
      return;
    }
    const { formatReconcile } = await import('../attribution/reconcile/command.js');
    this.context.stdout.write(formatReconcile(report));
  }
}
