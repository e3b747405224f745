import { Command, Option } from 'clipanion';
import { TracerCommand } from '../cli/tracer-command.js';

export class ShowCommand extends TracerCommand {
  static override paths = [['show']];
  static override usage = Command.Usage({
    category: 'Attribution',
    description: "Show one commit's attribution: lines by agent and by person, per file, and the conversations behind them",
    details: `
      Counts the lines the commit added (git's count, renames detected, so a renamed file adds only what changed) and, from the commit's ledger, whose they are: \`ai\`, \`human\`, \`mixed\` or \`unknown\` (the commit has no ledger). It lists the files, the agent conversations that wrote lines (agent, model, conversation URL and the session's latest summary) and what the commit link says (the commit it replaced, after an amend or a rebase).

      It reads ledgers.jsonl, commit-links.jsonl and session-summaries.jsonl and runs git; it writes nothing.

      With --json it prints \`{"commit", "subject", "author", "ledger_sha", "lines": {"ai", "human", "mixed", "unknown"}, "files": [{"path", "lines"}], "conversations": [{"agent", "model_id", "url", "summary", "lines"}], "recovered", "link"}\`. \`recovered\` is null, or \`{"lines", "files": [{"path", "ranges": [[start, end]]}]}\` for the agent lines reconcile re-attached by content hash because the branch's commits were gone (\`tracer blame\` marks them \`recovered\` too).
    `,
    examples: [
      ['The last commit', '$0 show'],
      ['A given commit, as JSON', '$0 show 3f2a1b4c --json'],
    ],
  });

  rev = Option.String({ name: 'commit', required: false });
  json = Option.Boolean('--json', false, { description: 'Print one machine-readable object on stdout' });

  async run() {
    const project = this.project();
    const { cwd, env } = this.context;
    const { showCommit } = await import('../attribution/show.js');
    const report = await showCommit({
      projectDir: project.dir,
      git: { cwd, env },
      rev: this.rev ?? 'HEAD',
    });
    if (this.json) {
      this.printJson(report);
      return;
    }
    const { formatShow } = await import('../attribution/format-summary.js');
    this.context.stdout.write(formatShow(report));
  }
}
