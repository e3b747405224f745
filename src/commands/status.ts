import { Command, Option } from 'clipanion';
import { TracerCommand } from '../cli/tracer-command.js';

export class StatusCommand extends TracerCommand {
  static override usesKernel = true;
  static override paths = [['status']];
  static override usage = Command.Usage({
    category: 'Sync',
    description: 'Show, per remote and family, what is not pushed yet',
    details: `
      Counts, for every remote of this project and every family, the local items that \`sync-state.json\` does not list as on that remote, and how many of them a push would hold back: traces that no ledger attributes wait for attribution (\`tracer push --full\` sends them anyway). It reads local files only; no network.
    `,
    examples: [
      ['Show unpushed counts', '$0 status'],
      ['The same as JSON', '$0 status --json'],
    ],
  });

  json = Option.Boolean('--json', false, { description: 'Print one machine-readable result object on stdout' });

  async run() {
    this.project();
    const { statusCommand } = await import('../engine/status.js');
    return statusCommand({ kernel: await this.kernel(), stdout: this.context.stdout, json: this.json });
  }
}
