import { Command, Option } from 'clipanion';
import { TracerCommand } from '../cli/tracer-command.js';
import { SPOOL_NOT_FOLDED } from '../capture/spool/pending.js';

/** Run by the post-commit hook that `tracer init` installs; by hand to attribute an older commit. */
export class CommitLinkCommand extends TracerCommand {
  static override paths = [['commit-link']];
  static override usage = Command.Usage({
    category: 'Capture',
    description: 'Attribute a commit to agent traces: write its ledger, commit link and git note',
    details: `
      Reads the lines the commit added (against its first parent; a root commit against nothing) with git plumbing, and attributes each non-blank line to the agent trace that wrote it - a trace in \`traces.jsonl\` that wrote the same repository path and whose \`line_hashes\` hold the line - or else to a person. A trace's line is never used twice in one branch history: the lines earlier commits claimed are kept in \`attribution-state.json\`.

      Appends the ledger (\`sha\`, \`ts\`, \`commit\`, \`trace_ids\` and \`record\`, the attribution as an Agent Trace record) to \`ledgers.jsonl\`, a commit link (\`commit\`, \`session_ids\`, \`trace_ids\`) to \`commit-links.jsonl\`, and writes the record as a git note under \`refs/notes/tracer\`. The ledger is deterministic: the same commit and traces give the same bytes on every machine, and running the command again appends nothing.

      The post-commit hook spools the commit and the fold in the background does this; the hook runs it itself only when it cannot spool (\`TRACER_HOOK_SYNC=1\`), and then, if the agents' spooled events cannot be folded first, spools the commit instead of attributing it without them. As a git hook it prints nothing and always exits 0; failures go to \`hook-errors.log\` in the project folder. With \`--verbose\` it prints what it recorded and reports failures with their exit code.
    `,
    examples: [
      ['Attribute HEAD (what the post-commit hook runs)', '$0 commit-link'],
      ['Attribute an older commit and show the result', '$0 commit-link --commit HEAD~2 --verbose'],
    ],
  });

  commit = Option.String('--commit', 'HEAD', { description: 'The commit to attribute (any revision git understands; default HEAD)' });
  verbose = Option.Boolean('--verbose', false, {
    description: 'Print what was recorded, and report failures instead of only logging them',
  });

  spooled = Option.Boolean('--spooled', false, {
    description:
      "What the post-commit hook runs when it spooled the commit and commit_summary may be on: print the commit's bar once the fold made its ledger; build nothing",
  });

  async run() {
    const hooks = await import('../capture/ledger/git-hook-entry.js');
    const { env, cwd, stdout, stderr } = this.context;
    const io = { cwd, env, stdout, stderr, verbose: this.verbose };
    if (this.spooled) return hooks.printSpooledSummary(this.commit, io);
    // The spool could not be folded first (src/capture/spool/fold-first.ts): a ledger built now would miss the
    // agents' events spooled before the commit, so the hook's commit is spooled after them, for the fold that can.
    if (!this.verbose && this.context.warnings.some((warning) => warning.code === SPOOL_NOT_FOLDED))
      return hooks.spoolCommit(this.commit, io);
    return hooks.runCommitLink(this.commit, io);
  }
}
