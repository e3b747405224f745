import { Command, Option } from 'clipanion';
import { parseSince } from '../cli/since.js';
import { describeFamilies } from '../cli/plugin-usage.js';
import { TracerCommand } from '../cli/tracer-command.js';
import type { Kernel } from '../kernel/kernel.js';

export class PullCommand extends TracerCommand {
  static override usesKernel = true;
  static override paths = [['pull']];
  static override usage = pullUsage('the families of the enabled plugins (see `tracer plugins`)');
  static usageWith(kernel: Kernel) {
    return pullUsage(describeFamilies(kernel));
  }

  remote = Option.String('--remote', { description: 'Remote to pull from (default: remote.default, or the sole remote)' });
  since = Option.String('--since', {
    description: 'Only items whose ts is at or after this ISO-8601 date or date-time (overrides the stored cursors)',
  });
  dryRun = Option.Boolean('--dry-run', { description: 'Show what would be merged; write nothing' });
  json = Option.Boolean('--json', false, { description: 'Print one machine-readable result object on stdout' });
  quiet = Option.Boolean('--quiet,-q', false, { description: 'Print errors only' });

  async run() {
    const since = parseSince(this.since);
    this.project();
    const { pullCommand } = await import('../engine/transfer-commands.js');
    return pullCommand(
      { kernel: await this.kernel(), stdout: this.context.stdout, json: this.json, quiet: this.quiet },
      { remote: this.remote, since, dryRun: this.dryRun },
    );
  }
}

function pullUsage(families: string) {
  return Command.Usage({
    category: 'Sync',
    description: 'Fetch what a remote holds into the local store',
    details: `
      Reads every family page by page (500 items per page), from the cursor kept per remote and family in \`sync-state.json\`, so a pull only fetches what is new and an interrupted pull resumes. Rows already held locally are skipped by content id; the id of every pulled row is verified before it is appended. Large transcripts arrive as pointers: their bytes are fetched from \`GET /api/v1/blobs/<sha>\` into \`conversations/<sha[:2]>/<sha>\`, verified before they are put in place, and \`conversations/_index.json\` points each conversation at its freshest snapshot.

      Families: ${families}.

      \`--since\` reads from the start, filtered by item time, and leaves the stored cursors alone.
    `,
    examples: [
      ['Pull from the default remote', '$0 pull'],
      ['See what a pull would add, writing nothing', '$0 pull --dry-run'],
      ['Pull items from May 1st on from the remote "backup"', '$0 pull --remote backup --since 2024-05-01'],
    ],
  });
}
