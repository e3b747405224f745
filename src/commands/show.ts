import { Command, Option } from 'clipanion';
import { TracerCommand } from '../cli/tracer-command.js';

export class ShowCommand extends TracerCommand {
  static override paths = [['show']];
  static override usage = Command.Usage({
    category: 'Attribution',
    description: "Show one commit's attribution: lines by agent and by person, per file, and the conversations behind them",
    details: `
      Counts the lines the commit added (git's count, renames detected, so a renamed file adds only what changed) and, from the commit's ledger, whose they are: \`ai\`, \`human\`, \`mixed\` or \`unknown\` (the commit has no ledger). It lists the files, the agent conversations that wrote lines (agent, model, conversation URL and the session's latest summary) and what the commit link says (the commit it replaced, after an amend or a rebase).

      For each conversation it also shows its tokens (input, output, cache write, cache read) read from its transcript and its cost at the providers' list prices (with the price table's version; \`$TRACER_HOME/prices.json\` overrides it), and what became of the commit's AI lines since: still there at the tip of the default branch, or deleted, by a person or another agent. --no-cost leaves that out (no transcript is read).

      It reads ledgers.jsonl, commit-links.jsonl, session-summaries.jsonl and the transcripts, and runs git; it writes nothing but its caches.

      With --json it prints \`{"commit", "subject", "author", "ledger_sha", "lines": {"ai", "human", "mixed", "unknown"}, "files": [{"path", "lines"}], "conversations": [{"agent", "model_id", "url", "summary", "lines", "usage"}], "cost", "fate", "recovered", "link"}\`: \`usage\` is the conversation's \`{"usage": "known" | "unknown" | "missing", "reason", "turns", "requests", "tokens": {"input", "output", "cache_write", "cache_read", "reasoning", "cache_write_1h"}, "cost_usd", "cost_known", "unpriced"}\`, \`cost\` the sum over the conversations \`{"prices", "tokens", "cost_usd", "cost_known"}\`, \`fate\` \`{"to", "added", "alive", "deleted": {"person", "other_agent", "same_conversation", "unknown"}, "rework"}\` (null when nothing came after the commit). \`recovered\` is null, or \`{"lines", "files": [{"path", "ranges": [[start, end]]}]}\` for the agent lines reconcile re-attached by content hash because the branch's commits were gone (\`tracer blame\` marks them \`recovered\` too).
    `,
    examples: [
      ['The last commit', '$0 show'],
      ['A given commit, as JSON', '$0 show 3f2a1b4c --json'],
    ],
  });

  rev = Option.String({ name: 'commit', required: false });
  json = Option.Boolean('--json', false, { description: 'Print one machine-readable object on stdout' });
  cost = Option.Boolean('--cost', true, {
    description: "The conversations' tokens and cost, and what became of the AI lines (--no-cost: leave them out)",
  });

  async run() {
    const project = this.project();
    const { home, cwd, env } = this.context;
    const { showCommit } = await import('../attribution/show.js');
    const prices = this.cost ? await (await import('../cost/prices.js')).loadPriceTable(home) : undefined;
    const report = await showCommit({
      projectDir: project.dir,
      git: { cwd, env },
      rev: this.rev ?? 'HEAD',
      onWait: this.waitNotice(),
      ...(prices ? { cost: { context: { home, cwd, env }, prices } } : {}),
    });
    if (this.json) {
      this.printJson(report);
      return;
    }
    const { formatShow } = await import('../attribution/format-summary.js');
    this.context.stdout.write(formatShow(report));
  }
}
