import { Command, Option } from 'clipanion';
import { TracerCommand } from '../../cli/tracer-command.js';
import { readRemotes, remoteRecord, requireRemote, updateRemotes } from '../../store/remotes.js';

export class RemoteSetUrlCommand extends TracerCommand {
  static override foldsSpoolFirst = false;
  static override paths = [['remote', 'set-url']];
  static override usage = Command.Usage({
    category: 'Remotes',
    description: "Change a remote's URL",
    details: `
      Checks the new URL against the remote URL grammar (see \`tracer remote add --help\`), then rewrites the remote's \`url\`, \`org_slug\`, \`project_slug\` and \`base_url\` in \`remotes.json\`. The token binding is kept as it is.
    `,
    examples: [
      ['Move origin to another host', '$0 remote set-url origin https://traces.example.org/acme/web'],
      ['Go through a gateway', '$0 remote set-url origin https://gw.example.com/gw/acme/web'],
    ],
  });

  name = Option.String({ name: 'name' });
  url = Option.String({ name: 'url' });

  async run() {
    const project = this.project();
    const current = requireRemote(await readRemotes(project.dir), this.name);
    const next = remoteRecord(this.url, current.auth);
    await updateRemotes(project.dir, (file) => {
      file.remotes[this.name] = { ...requireRemote(file, this.name), ...next };
    });
    this.print(
      current.url === next.url ? `Remote ${this.name} already points at ${next.url}` : `Remote ${this.name}: ${current.url} -> ${next.url}`,
    );
  }
}
