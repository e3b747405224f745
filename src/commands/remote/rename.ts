import { Command, Option } from 'clipanion';
import { TracerCommand } from '../../cli/tracer-command.js';
import { ExitCode, TracerError } from '../../core/errors.js';
import { readGlobalConfig, readProjectConfig, updateGlobalConfig, updateProjectConfig } from '../../store/config-files.js';
import { formatTokenRef, globalTokenKey } from '../../store/credentials.js';
import { checkRemoteName, readRemotes, requireRemote, updateRemotes } from '../../store/remotes.js';
import { deleteStoredTokens, storedTokenKey } from './token-binding.js';

export class RemoteRenameCommand extends TracerCommand {
  static override foldsSpoolFirst = false;
  static override paths = [['remote', 'rename']];
  static override usage = Command.Usage({
    category: 'Remotes',
    description: 'Rename a remote',
    details: `
      Renames the remote in \`remotes.json\`. A token stored for it in \`config.json\` moves to the new name's key (\`tokens.<project_id>::<new>\`) and the \`token_ref\` follows; an \`env:\` binding is kept as it is. When the remote was \`remote.default\`, the default follows the new name.
    `,
    examples: [['Rename origin to prod', '$0 remote rename origin prod']],
  });

  oldName = Option.String({ name: 'old' });
  newName = Option.String({ name: 'new' });

  async run() {
    const project = this.project();
    const { home } = this.context;
    const newName = checkRemoteName(this.newName);
    const before = await readRemotes(project.dir);
    const record = requireRemote(before, this.oldName);
    if (this.oldName === newName) {
      this.print(`Remote ${newName} already has that name`);
      return;
    }
    if (before.remotes[newName]) {
      throw new TracerError(
        'remote_exists',
        `A remote named "${newName}" already exists; remove it first (tracer remote remove ${newName}) or pick another name.`,
        {
          exitCode: ExitCode.usage,
        },
      );
    }

    // Copy the secret before the ref moves, delete the old copy after: a failure in between leaves a spare copy, never a lost token.
    const oldKey = storedTokenKey(record);
    const carriedKey = oldKey === globalTokenKey(project.id, this.oldName) ? globalTokenKey(project.id, newName) : undefined;
    let carried = false;
    if (oldKey && carriedKey) {
      const secret = (await readGlobalConfig(home)).tokens?.[oldKey];
      if (secret !== undefined) {
        await updateGlobalConfig(home, (config) => void (config.tokens = { ...(config.tokens ?? {}), [carriedKey]: secret }));
        carried = true;
      }
    }
    const after = await updateRemotes(project.dir, (file) => {
      const moving = requireRemote(file, this.oldName);
      delete file.remotes[this.oldName];
      file.remotes[newName] = carriedKey ? { ...moving, auth: { token_ref: formatTokenRef({ kind: 'global', key: carriedKey }) } } : moving;
    });
    if (oldKey && carriedKey) await deleteStoredTokens(home, [oldKey], after);
    // The sync state is the engine's: loaded only here, so that remote commands start without it.
    const { renameSyncRecord } = await import('../../engine/sync-state.js');
    await renameSyncRecord(project.dir, this.oldName, newName);

    const config = await readProjectConfig(project.dir);
    const wasDefault = config.remote?.default === this.oldName;
    if (wasDefault)
      await updateProjectConfig(project.dir, (current) => void (current.remote = { ...(current.remote ?? {}), default: newName }));

    this.print(`Renamed remote ${this.oldName} to ${newName}`);
    if (carried) this.print(`  its stored token moved to tokens.${carriedKey} in config.json`);
    if (wasDefault) this.print(`  remote.default is now ${newName}`);
  }
}
