import { Command, Option } from 'clipanion';
import { TracerCommand } from '../cli/tracer-command.js';

export class DoctorCommand extends TracerCommand {
  static override usesKernel = true;
  static override paths = [['doctor']];
  static override usage = Command.Usage({
    category: 'Sync',
    description: 'Check every remote: URL, token, server, token scope',
    details: `
      For each remote of this project, one line per check: the URL parses (spec §1 grammar), a token is bound and resolves, the server answers, and \`GET /api/v1/auth/whoami\` says the token covers the URL's org and project (\`org_slug_mismatch\` and \`project_scope_mismatch\` fail; a server without whoami passes with the warning \`whoami_unsupported\`). Exits non-zero, with the code of the first failure's category, if any check fails.
    `,
    examples: [
      ['Check every remote', '$0 doctor'],
      ['The same as JSON', '$0 doctor --json'],
    ],
  });

  json = Option.Boolean('--json', false, { description: 'Print one machine-readable result object on stdout' });

  async run() {
    this.project();
    const { doctorCommand } = await import('../engine/doctor.js');
    return doctorCommand({ kernel: await this.kernel(), stdout: this.context.stdout, json: this.json });
  }
}
