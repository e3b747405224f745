import { Command, Option } from 'clipanion';
import * as t from 'typanion';
import { TracerCommand } from '../../cli/tracer-command.js';

export class CiGithubCommand extends TracerCommand {
  static override foldsSpoolFirst = false;
  static override paths = [['ci', 'github']];
  static override usage = Command.Usage({
    category: 'Attribution',
    description: 'Write a GitHub Actions workflow that reconciles merged commits and comments attribution on pull requests',
    details: `
      Writes \`.github/workflows/tracer.yml\`. On a push to the default branch (the merge button's squash, rebase or merge commit) it pulls the branch's ledgers from the tracer service, reconciles the pushed commits (\`tracer reconcile\`), pushes the new ledgers and the \`refs/notes/tracer\` notes. On every pull request it posts \`tracer stats <base>..<head> --markdown\` as a comment and in the job summary.

      The token is read from the repository secret named by --secret (default \`TRACER_TOKEN\`), through \`--token-env\`: it is never written anywhere. The service URL defaults to the project's \`origin\` (or only) tracer remote. A workflow file that tracer did not write is never replaced without --force.
    `,
    examples: [
      ['Write the workflow for the project remote', '$0 ci github'],
      [
        'Another service and secret, printed instead of written',
        '$0 ci github --url https://traces.example.com/acme/web --secret ACME_TRACER_TOKEN --print',
      ],
    ],
  });

  url = Option.String('--url', { description: 'The tracer remote URL, https://<service>/<org>/<project> (default: the project remote)' });
  secret = Option.String('--secret', 'TRACER_TOKEN', {
    description: 'Name of the repository secret (GitHub) or CI/CD variable (GitLab) holding the tracer token (default TRACER_TOKEN)',
    validator: t.cascade(t.isString(), [t.matchesRegExp(/^[A-Za-z_][A-Za-z0-9_]*$/)]),
  });
  install = Option.String('--install', {
    description: 'Shell command that installs tracer in the job (default npm install --global tracer@<this version>)',
  });
  branch = Option.String('--branch', { description: 'The branch merges land on (default: the default branch)' });
  printOnly = Option.Boolean('--print', false, { description: 'Print the workflow on stdout instead of writing it' });
  force = Option.Boolean('--force', false, { description: 'Replace a workflow file of the same name that tracer did not write' });

  protected readonly host: 'github' | 'gitlab' = 'github';

  async run() {
    const { runCi } = await import('../../attribution/ci-command.js');
    return runCi(
      this.host,
      { url: this.url, secret: this.secret, install: this.install, branch: this.branch, print: this.printOnly, force: this.force },
      this.project(),
      this.context,
    );
  }
}
