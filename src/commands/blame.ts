import { Command, Option, UsageError } from 'clipanion';
import { TracerCommand } from '../cli/tracer-command.js';

export class BlameCommand extends TracerCommand {
  static override paths = [['blame']];
  static override usage = Command.Usage({
    category: 'Attribution',
    description: 'Show who wrote each line of a file: an agent, a person, or both',
    details: `
      Runs \`git blame --porcelain\` on the file and looks up, for every line, the ledger of the commit that introduced it. The tag after the commit says who wrote the line there: \`AI\` (an agent; its name and model follow), \`HU\` (a person), \`MX\` (both), \`??\` (the commit has no ledger: made before tracer was installed, or elsewhere) and \`--\` (not committed yet). Renames, moves and \`-w\` behave as in git blame, since git decides them.

      Without --rev it blames the file in the working tree. It reads ledgers.jsonl and runs git; it writes nothing.

      With --json it prints \`{"path", "rev", "working_tree", "lines": [{"line", "commit", "type", "agent", "model_id", "conversation_url", "content"}]}\`, null where a member is not known; \`type\` is \`ai\`, \`human\`, \`mixed\`, \`unknown\` or \`uncommitted\`.
    `,
    examples: [
      ['Blame a file in the working tree', '$0 blame src/main.ts'],
      ['Lines 12 to 20 as they were two commits ago', '$0 blame src/main.ts --rev HEAD~2 --line 12-20'],
      ['Every line as JSON', '$0 blame src/main.ts --json'],
    ],
  });

  file = Option.String({ name: 'path' });
  rev = Option.String('--rev', { description: 'Blame the file as this commit has it (default: the working tree)' });
  line = Option.String('--line,-L', { description: 'Only these lines, A-B (or a single line A)' });
  json = Option.Boolean('--json', false, { description: 'Print one machine-readable object on stdout' });
  ignoreWhitespace = Option.Boolean('-w', false, { description: 'Ignore whitespace when matching lines to their commit, as git blame -w' });
  moves = Option.Boolean('-M', false, { description: 'Follow lines moved within the file, as git blame -M' });
  copies = Option.Boolean('-C', false, { description: 'Follow lines moved or copied from other files, as git blame -C' });

  async run() {
    const lines = this.line === undefined ? undefined : parseLineRange(this.line);
    if (this.line !== undefined && lines === undefined)
      throw new UsageError(`--line takes A-B with 1 ≤ A ≤ B (for example 12-20), not "${this.line}"`);
    const project = this.project();
    const { cwd, env } = this.context;
    const options = [this.ignoreWhitespace && '-w', this.moves && '-M', this.copies && '-C'].filter((flag): flag is string => !!flag);
    const query = {
      projectDir: project.dir,
      git: { cwd, env },
      path: this.file,
      ...(this.rev === undefined ? {} : { rev: this.rev }),
      ...(lines === undefined ? {} : { lines }),
      options,
      onWait: this.waitNotice(),
    };
    const { blameFile } = await import('../attribution/blame.js');
    const { report, details } = await blameFile(query);
    if (this.json) {
      this.context.stdout.write(`${JSON.stringify(report)}\n`);
      return;
    }
    const { formatBlame } = await import('../attribution/format-blame.js');
    this.context.stdout.write(formatBlame(report, details));
  }
}

/** `A-B`, `A,B` or `A`, with 1 ≤ A ≤ B; undefined otherwise. */
function parseLineRange(text: string): { start: number; end: number } | undefined {
  const match = /^(\d+)(?:[-,](\d+))?$/.exec(text.trim());
  if (!match) return undefined;
  const start = Number(match[1]);
  const end = match[2] === undefined ? start : Number(match[2]);
  return start >= 1 && end >= start ? { start, end } : undefined;
}
