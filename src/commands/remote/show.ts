import { Command, Option } from 'clipanion';
import { TracerCommand } from '../../cli/tracer-command.js';
import { readGlobalConfig, readProjectConfig } from '../../store/config-files.js';
import { chooseRemoteName, readRemotes, requireRemote } from '../../store/remotes.js';
import { defaultRemoteName, viewRemote, type RemoteView } from './describe.js';

export class RemoteShowCommand extends TracerCommand {
  static override foldsSpoolFirst = false;
  static override paths = [['remote', 'show']];
  static override usage = Command.Usage({
    category: 'Remotes',
    description: 'Show one remote and how its token is bound',
    details: `
      Prints the remote's URL, the \`org_slug\`, \`project_slug\` and \`base_url\` derived from it, its \`token_ref\`, and where the token comes from. The token itself is masked. Without a name, shows the remote that push would use (\`remote.default\`, else the sole remote).
    `,
    examples: [
      ['Show the remote named origin', '$0 remote show origin'],
      ['Show the default remote as JSON', '$0 remote show --json'],
    ],
  });

  json = Option.Boolean('--json', false, { description: 'Print a JSON object instead of text' });
  name = Option.String({ name: 'name', required: false });

  async run() {
    const project = this.project();
    const [remotes, projectConfig, globalConfig] = await Promise.all([
      readRemotes(project.dir),
      readProjectConfig(project.dir),
      readGlobalConfig(this.context.home),
    ]);
    const name = this.name ?? chooseRemoteName(remotes, undefined, projectConfig.remote?.default);
    const record = requireRemote(remotes, name);
    const view = viewRemote(
      name,
      record,
      globalConfig,
      this.context.env,
      defaultRemoteName(remotes, projectConfig.remote?.default) === name,
    );
    if (this.json) this.printJson(view);
    else this.print(formatView(view));
  }
}

function formatView(view: RemoteView): string {
  const token = view.token_present ? `${view.token} (from ${view.token_source})` : `none: ${view.token_problem}`;
  return [
    `remote ${view.name}${view.default ? ' (default)' : ''}`,
    `  url:          ${view.url}`,
    `  org_slug:     ${view.org_slug}`,
    `  project_slug: ${view.project_slug}`,
    `  base_url:     ${view.base_url}`,
    `  api_root:     ${view.api_root ?? '(the stored URL does not parse; fix it with tracer remote set-url)'}`,
    `  token_ref:    ${view.token_ref ?? '(none)'}`,
    `  token:        ${token}`,
  ].join('\n');
}
