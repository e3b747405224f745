import { Command, Option } from 'clipanion';
import { parseSince } from '../cli/since.js';
import { describeFamilies } from '../cli/plugin-usage.js';
import { TracerCommand } from '../cli/tracer-command.js';
import type { Kernel } from '../kernel/kernel.js';
import { onlyChoices } from '../engine/only.js';

export class PushCommand extends TracerCommand {
  static override usesKernel = true;
  static override paths = [['push']];
  static override usage = pushUsage('the families of the enabled plugins (see `tracer plugins`)');
  static usageWith(kernel: Kernel) {
    return pushUsage(`${describeFamilies(kernel)}; \`--only\` takes ${onlyChoices(kernel).join(', ')}`);
  }

  remote = Option.String('--remote', { description: 'Remote to push to (default: remote.default, or the sole remote)' });
  full = Option.Boolean('--full', { description: 'Also send traces that no ledger attributes' });
  only = Option.String('--only', {
    description: 'Restrict to one family; the families that follow it go along (see Families above)',
  });
  since = Option.String('--since', { description: 'Only items whose ts is at or after this ISO-8601 date or date-time' });
  dryRun = Option.Boolean('--dry-run', { description: 'Print the plan and counts; send no mutating request' });
  json = Option.Boolean('--json', false, { description: 'Print one machine-readable result object on stdout' });
  quiet = Option.Boolean('--quiet,-q', false, { description: 'Print errors only' });

  async run() {
    const since = parseSince(this.since);
    this.project();
    const { pushCommand } = await import('../engine/transfer-commands.js');
    return pushCommand(await this.io(), { remote: this.remote, full: this.full, only: this.only, since, dryRun: this.dryRun });
  }

  private async io() {
    return { kernel: await this.kernel(), stdout: this.context.stdout, json: this.json, quiet: this.quiet };
  }
}

function pushUsage(families: string) {
  return Command.Usage({
    category: 'Sync',
    description: 'Send every local artifact family to a remote',
    details: `
      First checks the token's scope (\`GET /api/v1/auth/whoami\`): a token of another org (\`org_slug_mismatch\`) or a project token for another project (\`project_scope_mismatch\`) stops the push. Then sends each family in plugin order, 500 items per request; transcripts below 256 KiB go inline, larger ones as blobs.

      Families: ${families}.

      What is already on the remote is listed per remote in \`sync-state.json\`; a second push of the same data sends nothing. Without \`--full\`, traces no ledger attributes wait (see \`tracer status\`). Items the server refuses are left unsynced, never dropped, and recorded in \`push-errors.log\` in the project folder; the push then exits 7.

      Old servers: without a summaries route, summaries are skipped silently; without a blob route, large transcripts go inline (logged); without whoami, a warning \`whoami_unsupported\`.
    `,
    examples: [
      ['Push to the default remote', '$0 push'],
      ['See what a push would send, sending nothing', '$0 push --dry-run'],
      ['Push only ledgers to the remote "backup"', '$0 push --remote backup --only ledgers'],
      ['Push traces recorded since May 1st, attributed or not', '$0 push --full --only traces --since 2024-05-01'],
    ],
  });
}
