import { Command, Option } from 'clipanion';
import * as t from 'typanion';
import { TracerCommand } from '../cli/tracer-command.js';

export class ContextCommand extends TracerCommand {
  static override paths = [['context']];
  static override usage = Command.Usage({
    category: 'Capture',
    description: 'Print a compact digest of recent agent work in this project',
    details: `
      Meant for agents (a rule can tell them to run it) and for people catching up: the latest sessions recorded by the hooks (agent, conversation id, first and last event, files written), each session's latest summary, and for the latest commits how many added lines were written by an agent (\`ai\`), by a person (\`human\`) or both (\`mixed\`), from the attribution ledgers.

      It reads local files only (traces.jsonl, session-summaries.jsonl, ledgers.jsonl); no network.
    `,
    examples: [
      ['Show the digest', '$0 context'],
      ['The three latest sessions and commits, as JSON', '$0 context --json --limit 3'],
    ],
  });

  json = Option.Boolean('--json', false, { description: 'Print one machine-readable object on stdout' });
  limit = Option.String('--limit', '5', {
    description: 'How many sessions and commits to show (1 to 100, default 5)',
    validator: t.cascade(t.isNumber(), [t.isInteger(), t.isInInclusiveRange(1, 100)]),
  });

  async run() {
    const project = this.project();
    const { buildDigest } = await import('../capture/context/digest.js');
    const digest = await buildDigest(project, this.limit, (warning) => this.warn(warning));
    if (this.json) {
      this.printJson(digest);
      return;
    }
    const { formatDigest } = await import('../capture/context/format.js');
    this.context.stdout.write(formatDigest(digest));
  }
}
