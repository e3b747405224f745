import { Command, Option } from 'clipanion';
import * as t from 'typanion';
import { TracerCommand } from '../../cli/tracer-command.js';

export class CiGitlabCommand extends TracerCommand {
  static override paths = [['ci', 'gitlab']];
  static override usage = Command.Usage({
    category: 'Attribution',
    description: 'Write a GitLab CI file that reconciles merged commits and notes attribution on merge requests',
    details: `
      Writes \`.gitlab/tracer.yml\`, to include from \`.gitlab-ci.yml\` (\`include: [{ local: .gitlab/tracer.yml }]\`). On a push to the default branch (a merge, squashed or not) it pulls the branch's ledgers from the tracer service, reconciles the pushed commits (\`tracer reconcile\`, which reads GitLab's \`See merge request !N\` and \`refs/merge-requests/N/head\`), pushes the new ledgers and the \`refs/notes/tracer\` notes. On every merge request it writes \`tracer stats <base>..<head> --markdown\` to \`tracer-stats.md\` (an artifact) and posts it as a note when \`TRACER_GITLAB_TOKEN\` is set.

      The token is read from the CI/CD variable named by --secret (default \`TRACER_TOKEN\`), through \`--token-env\`: it is never written anywhere. The service URL defaults to the project's \`origin\` (or only) tracer remote. A file that tracer did not write is never replaced without --force.
    `,
    examples: [
      ['Write the CI file for the project remote', '$0 ci gitlab'],
      [
        'Another service and secret, printed instead of written',
        '$0 ci gitlab --url https://traces.example.com/acme/web --secret ACME_TRACER_TOKEN --print',
      ],
    ],
  });

  url = Option.String('--url', { description: 'The tracer remote URL, https://<service>/<org>/<project> (default: the project remote)' });
  secret = Option.String('--secret', 'TRACER_TOKEN', {
    description: 'Name of the CI/CD variable holding the tracer token (default TRACER_TOKEN)',
    validator: t.cascade(t.isString(), [t.matchesRegExp(/^[A-Za-z_][A-Za-z0-9_]*$/)]),
  });
  install = Option.String('--install', {
    description: 'Shell command that installs tracer in the job (default npm install --global tracer@<this version>)',
  });
  branch = Option.String('--branch', { description: 'The branch merges land on (default: the default branch)' });
  printOnly = Option.Boolean('--print', false, { description: 'Print the workflow on stdout instead of writing it' });
  force = Option.Boolean('--force', false, { description: 'Replace a workflow file of the same name that tracer did not write' });

  async run() {
    const { runCi } = await import('../../attribution/ci-command.js');
    return runCi(
      'gitlab',
      { url: this.url, secret: this.secret, install: this.install, branch: this.branch, print: this.printOnly, force: this.force },
      this.project(),
      this.context,
    );
  }
}
