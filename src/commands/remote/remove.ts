import { Command, Option } from 'clipanion';
import { TracerCommand } from '../../cli/tracer-command.js';
import { readProjectConfig, updateProjectConfig } from '../../store/config-files.js';
import { readRemotes, requireRemote, updateRemotes } from '../../store/remotes.js';
import { deleteStoredTokens, storedTokenKey } from './token-binding.js';

export class RemoteRemoveCommand extends TracerCommand {
  static override foldsSpoolFirst = false;
  static override paths = [['remote', 'remove']];
  static override usage = Command.Usage({
    category: 'Remotes',
    description: 'Forget a remote and its stored token',
    details: `
      Removes the remote from \`remotes.json\` and deletes the token stored for it in \`config.json\`. When it was \`remote.default\`, the default is cleared. Local trace data and the data on the service are untouched.
    `,
    examples: [['Remove the remote named backup', '$0 remote remove backup']],
  });

  name = Option.String({ name: 'name' });

  async run() {
    const project = this.project();
    const { home } = this.context;
    const record = requireRemote(await readRemotes(project.dir), this.name);
    const after = await updateRemotes(project.dir, (file) => {
      requireRemote(file, this.name);
      delete file.remotes[this.name];
    });
    const key = storedTokenKey(record);
    const deleted = key ? await deleteStoredTokens(home, [key], after) : [];
    // The sync state is the engine's: loaded only here, so that remote commands start without it.
    const { forgetSyncRecord } = await import('../../engine/sync-state.js');
    await forgetSyncRecord(project.dir, this.name);

    const wasDefault = (await readProjectConfig(project.dir)).remote?.default === this.name;
    if (wasDefault) {
      await updateProjectConfig(project.dir, (config) => {
        delete config.remote?.default;
        if (config.remote && Object.keys(config.remote).length === 0) delete config.remote;
      });
    }
    this.print(`Removed remote ${this.name}`);
    if (deleted.length > 0) this.print('  its stored token was deleted from config.json');
    if (wasDefault) this.print('  remote.default was cleared');
  }
}
