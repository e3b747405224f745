import { Command } from 'clipanion';
import { CiGithubCommand } from './github.js';

/** The same options as `tracer ci github`; only the file written differs. */
export class CiGitlabCommand extends CiGithubCommand {
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

  protected override readonly host = 'gitlab' as const;
}
