import { Command, Option, UsageError } from 'clipanion';
import { TracerCommand } from '../cli/tracer-command.js';

export class SyncCommand extends TracerCommand {
  static override usesKernel = true;
  static override paths = [['sync']];
  static override usage = Command.Usage({
    category: 'Sync',
    description: 'Push, then pull, against one remote',
    details: `
      Runs \`tracer push\` and then \`tracer pull\` in one invocation, with their defaults. Only \`--remote\` changes what it does (spec §4.2): for \`--full\`, \`--only\`, \`--since\` or \`--dry-run\`, run push or pull explicitly. \`--json\` and \`--quiet\` only change the output.
    `,
    examples: [
      ['Sync with the default remote', '$0 sync'],
      ['Sync with the remote "backup"', '$0 sync --remote backup'],
    ],
  });

  remote = Option.String('--remote', { description: 'Remote to sync with (default: remote.default, or the sole remote)' });
  json = Option.Boolean('--json', false, { description: 'Print one machine-readable result object on stdout' });
  quiet = Option.Boolean('--quiet,-q', false, { description: 'Print errors only' });
  // Accepted only to answer with a sentence that says what to run instead.
  full = Option.Boolean('--full', { hidden: true, description: 'Not accepted: use tracer push --full' });
  only = Option.String('--only', { hidden: true, description: 'Not accepted: use tracer push --only' });
  since = Option.String('--since', { hidden: true, description: 'Not accepted: use tracer push/pull --since' });
  dryRun = Option.Boolean('--dry-run', { hidden: true, description: 'Not accepted: use tracer push/pull --dry-run' });

  async run() {
    const refused = [
      this.full !== undefined && '--full',
      this.only !== undefined && '--only',
      this.since !== undefined && '--since',
      this.dryRun !== undefined && '--dry-run',
    ].filter(Boolean);
    if (refused.length > 0) {
      throw new UsageError(
        `tracer sync takes only --remote (and --json/--quiet), not ${refused.join(', ')}; run tracer push ${refused.join(' ')} (or pull) explicitly`,
      );
    }
    this.project();
    const { syncCommand } = await import('../engine/transfer-commands.js');
    return syncCommand(
      { kernel: await this.kernel(), stdout: this.context.stdout, json: this.json, quiet: this.quiet },
      { remote: this.remote },
    );
  }
}
