import { Command, Option, UsageError } from 'clipanion';
import * as t from 'typanion';
import { TracerCommand } from '../cli/tracer-command.js';

const BY = ['agent', 'model', 'author', 'file'] as const;

export class StatsCommand extends TracerCommand {
  static override paths = [['stats']];
  static override usage = Command.Usage({
    category: 'Attribution',
    description: 'Count the lines agents and people added over a range of commits',
    details: `
      Over a range of commits (default: the current branch since it left the default branch, origin's HEAD or main or master; the whole history when on that branch) it counts the lines added by contributor type (\`ai\`, \`human\`, \`mixed\`, \`unknown\` for commits without a ledger), the agents' lines per agent and per model, and the AI share (agents' lines over every line added). A renamed or moved file adds only the lines that changed; a merge adds only what its own ledger records (conflict resolutions), its branch's commits count their own lines.

      --markdown prints tables ready for a pull-request comment. --by chooses the breakdown table: agent (default), model, author or file. It runs one git log and reads ledgers.jsonl once; it writes nothing.

      With --json it prints \`{"range", "commits", "commits_with_ledger", "lines": {"ai", "human", "mixed", "unknown"}, "ai_share", "by_agent", "by_model"}\`, plus \`by_author\` or \`by_file\` when asked for.
    `,
    examples: [
      ['This branch since it left main', '$0 stats'],
      ['A range, as a pull-request comment', '$0 stats main..feature --markdown'],
      ['Per author, as JSON', '$0 stats HEAD~50..HEAD --by author --json'],
    ],
  });

  range = Option.String({ name: 'range', required: false });
  json = Option.Boolean('--json', false, { description: 'Print one machine-readable object on stdout' });
  markdown = Option.Boolean('--markdown', false, { description: 'Print Markdown tables, for a pull-request comment' });
  by = Option.String('--by', 'agent', {
    description: 'Breakdown: agent, model, author or file (default agent)',
    validator: t.isEnum(BY),
  });

  async run() {
    if (this.json && this.markdown) throw new UsageError('--json and --markdown cannot be used together');
    const project = this.project();
    const { cwd, env } = this.context;
    const { rangeStats } = await import('../attribution/stats.js');
    const report = await rangeStats({
      projectDir: project.dir,
      git: { cwd, env },
      ...(this.range === undefined ? {} : { range: this.range }),
      by: this.by,
      onCorrupt: (line) => this.warn({ code: 'unreadable_line', message: `ledgers.jsonl line ${line} is not valid JSON; it is skipped.` }),
    });
    if (this.json) {
      this.printJson(report);
      return;
    }
    const { formatStats, formatStatsMarkdown } = await import('../attribution/format-summary.js');
    this.context.stdout.write(this.markdown ? formatStatsMarkdown(report, this.by) : formatStats(report, this.by));
  }
}
