import { Command, Option } from 'clipanion';
import { TracerCommand } from '../../cli/tracer-command.js';
import { readGlobalConfig, readProjectConfig } from '../../store/config-files.js';
import { readRemotes } from '../../store/remotes.js';
import { defaultRemoteName, viewRemote } from './describe.js';

export class RemoteListCommand extends TracerCommand {
  static override foldsSpoolFirst = false;
  static override paths = [['remote', 'list'], ['remote']];
  static override usage = Command.Usage({
    category: 'Remotes',
    description: "List this project's remotes",
    details: 'One line per remote: name, URL, how its token is bound, and which one is the default. Tokens are never printed.',
    examples: [
      ['List the remotes', '$0 remote list'],
      ['List them as JSON', '$0 remote list --json'],
    ],
  });

  json = Option.Boolean('--json', false, { description: 'Print a JSON array instead of text' });

  async run() {
    const project = this.project();
    const [remotes, projectConfig, globalConfig] = await Promise.all([
      readRemotes(project.dir),
      readProjectConfig(project.dir),
      readGlobalConfig(this.context.home),
    ]);
    const chosen = defaultRemoteName(remotes, projectConfig.remote?.default);
    const views = Object.entries(remotes.remotes).map(([name, record]) =>
      viewRemote(name, record, globalConfig, this.context.env, name === chosen),
    );
    if (this.json) {
      this.printJson(
        views.map(({ name, url, org_slug, project_slug, base_url, token_ref, token_source, token_present, default: isDefault }) => ({
          name,
          url,
          org_slug,
          project_slug,
          base_url,
          token_ref,
          token_source,
          token_present,
          default: isDefault,
        })),
      );
      return;
    }
    if (views.length === 0) {
      this.print('No remotes yet; add one with tracer remote add <name> <url> --token <TOKEN>.');
      return;
    }
    const width = Math.max(...views.map((view) => view.name.length));
    for (const view of views) {
      this.print(`${view.default ? '*' : ' '} ${view.name.padEnd(width)}  ${view.url}  token: ${view.token_ref ?? 'none'}`);
    }
  }
}
