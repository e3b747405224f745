import { Command, Option } from 'clipanion';
import { TracerCommand } from '../../cli/tracer-command.js';
import { findSetting, unsetPath } from '../../store/settings.js';
import { settingsFile } from './scope.js';

export class ConfigUnsetCommand extends TracerCommand {
  static override foldsSpoolFirst = false;
  static override paths = [['config', 'unset']];
  static override usage = Command.Usage({
    category: 'Configuration',
    description: 'Remove one setting',
    details:
      'Removes a project setting (project-config.json), or with `--global` a global one (config.json), so its default applies again. Unknown keys are refused with the list of known ones.',
    examples: [
      ['Forget the default remote', '$0 config unset remote.default'],
      ['Clear the legacy global token slot', '$0 config unset --global auth-token'],
    ],
  });

  global = Option.Boolean('--global', false, { description: 'Change config.json instead of the project settings' });
  key = Option.String({ name: 'key' });

  async run() {
    const setting = findSetting(this.key, this.global ? 'global' : 'project');
    const file = settingsFile(this.context.home, setting.scope, () => this.project());
    let removed = false;
    await file.update((config) => {
      removed = unsetPath(config, setting.path);
    });
    this.print(removed ? `Unset ${setting.key}` : `${setting.key} was not set`);
  }
}
