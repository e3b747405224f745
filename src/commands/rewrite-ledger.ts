import { Command, Option } from 'clipanion';
import { TracerCommand } from '../cli/tracer-command.js';

/** Run by the post-rewrite hook that `tracer init` installs. */
export class RewriteLedgerCommand extends TracerCommand {
  static override paths = [['rewrite-ledger']];
  static override usage = Command.Usage({
    category: 'Capture',
    description: 'Move ledgers and commit links to the commits an amend or rebase produced',
    details: `
      Reads git's post-rewrite input on stdin, one \`<old commit> <new commit>\` line per rewritten commit, and attributes each new commit afresh from its own diff, with the traces the old commit's ledger used plus the current window. The old commit's claims on trace lines are released to the new commit, so nothing is attributed twice. Each new commit gets a ledger, a git note under \`refs/notes/tracer\`, and a commit link that records \`rewritten_from\`.

      As a git hook it prints nothing and always exits 0; failures go to \`hook-errors.log\` in the project folder. With \`--verbose\` it prints what it recorded and reports failures with their exit code.
    `,
    examples: [
      ['What the post-rewrite hook runs after git commit --amend', 'printf "%s %s\\n" OLD NEW | $0 rewrite-ledger amend'],
      ['Replay a rebase by hand, verbosely', 'printf "%s %s\\n" OLD NEW | $0 rewrite-ledger rebase --verbose'],
    ],
  });

  kind = Option.String({ name: 'amend|rebase', required: true });
  verbose = Option.Boolean('--verbose', false, {
    description: 'Print what was recorded, and report failures instead of only logging them',
  });

  async run() {
    const { runRewriteLedger } = await import('../capture/ledger/git-hook-entry.js');
    const { env, cwd } = this.context;
    return runRewriteLedger(this.kind, this.context.stdin, {
      cwd,
      env,
      stdout: this.context.stdout,
      stderr: this.context.stderr,
      verbose: this.verbose,
    });
  }
}
