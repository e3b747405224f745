import { Command, Option, UsageError } from 'clipanion';
import * as t from 'typanion';
import { TracerCommand } from '../cli/tracer-command.js';

const BY = ['agent', 'model', 'author', 'file'] as const;

export class StatsCommand extends TracerCommand {
  static override paths = [['stats']];
  static override usage = Command.Usage({
    category: 'Attribution',
    description: 'Count the lines agents and people added over a range of commits, and with --cost what the agents cost',
    details: `
      Over a range of commits (default: the current branch since it left the default branch, origin's HEAD or main or master; the whole history when on that branch) it counts the lines added by contributor type (\`ai\`, \`human\`, \`mixed\`, \`unknown\` for commits without a ledger), the agents' lines per agent and per model, and the AI share (agents' lines over every line added). A renamed or moved file adds only the lines that changed; a merge adds only what its own ledger records (conflict resolutions), its branch's commits count their own lines.

      --cost adds what the agents cost and what they delivered: the conversations behind the AI lines, their tokens (input, output, cache write, cache read) read from their transcripts, their cost at the providers' list prices (the price table's version is printed; \`$TRACER_HOME/prices.json\` overrides it), the lines their edits wrote, the AI lines that landed, those still at the tip of the default branch, the rework (AI lines a person or another agent deleted later, up to the tip of the default branch or the end of the range) and the conversations of the same time that reached no commit. A transcript is read once; later runs use \`cache/usage.jsonl\`. docs/attribution.md explains every figure.

      --markdown prints tables ready for a pull-request comment. --by chooses the breakdown table: agent (default), model, author or file. It runs git and reads ledgers.jsonl; it writes nothing but its caches.

      With --json it prints \`{"range", "commits", "commits_with_ledger", "lines": {"ai", "human", "mixed", "unknown"}, "ai_share", "by_agent", "by_model"}\`, plus \`by_author\` or \`by_file\` when asked for, and \`cost\` with --cost.
    `,
    examples: [
      ['This branch since it left main', '$0 stats'],
      ['A range, as a pull-request comment, with cost', '$0 stats main..feature --markdown --cost'],
      ['Per author, as JSON', '$0 stats HEAD~50..HEAD --by author --json'],
      ['Cost per model', '$0 stats --cost --by model'],
    ],
  });

  range = Option.String({ name: 'range', required: false });
  json = Option.Boolean('--json', false, { description: 'Print one machine-readable object on stdout' });
  markdown = Option.Boolean('--markdown', false, { description: 'Print Markdown tables, for a pull-request comment' });
  cost = Option.Boolean('--cost', false, { description: 'Add tokens, cost and what became of the AI lines (reads the transcripts once)' });
  by = Option.String('--by', 'agent', {
    description: 'Breakdown: agent, model, author or file (default agent)',
    validator: t.isEnum(BY),
  });

  async run() {
    if (this.json && this.markdown) throw new UsageError('--json and --markdown cannot be used together');
    const project = this.project();
    const { cwd, env } = this.context;
    const { rangeTallies, statsOf } = await import('../attribution/stats.js');
    const git = { cwd, env };
    const range = await rangeTallies({
      projectDir: project.dir,
      git,
      ...(this.range === undefined ? {} : { range: this.range }),
      by: this.by,
      urls: this.cost,
      onWait: this.waitNotice(),
      onCorrupt: (line) => this.warn({ code: 'unreadable_line', message: `ledgers.jsonl line ${line} is not valid JSON; it is skipped.` }),
    });
    const report = statsOf(range, this.by);
    const cost = this.cost ? await this.costOf(project.dir, git, range) : undefined;
    if (this.json) {
      const { costJson } = await import('../attribution/format-cost.js');
      this.printJson(cost ? { ...report, cost: costJson(cost) } : report);
      return;
    }
    const { formatStats, formatStatsMarkdown } = await import('../attribution/format-summary.js');
    this.context.stdout.write(this.markdown ? formatStatsMarkdown(report, this.by) : formatStats(report, this.by));
    if (!cost) return;
    const { formatCostMarkdown, formatCostText } = await import('../attribution/format-cost.js');
    this.context.stdout.write(`\n${this.markdown ? formatCostMarkdown(cost, this.by) : formatCostText(cost, this.by)}`);
  }

  private async costOf(
    projectDir: string,
    git: { cwd: string; env: NodeJS.ProcessEnv },
    range: import('../attribution/stats.js').RangeTallies,
  ) {
    const { home, cwd, env } = this.context;
    const [{ loadPriceTable }, { rangeCost }] = await Promise.all([import('../cost/prices.js'), import('../cost/range-cost.js')]);
    const prices = await loadPriceTable(home);
    return rangeCost({
      projectDir,
      git,
      context: { home, cwd, env },
      prices,
      range,
      by: this.by,
      onRead: (count) => {
        if (count >= 20)
          this.context.stderr.write(`tracer: reading the token usage of ${count} transcripts (once: later runs read it from the cache)…\n`);
      },
    });
  }
}
