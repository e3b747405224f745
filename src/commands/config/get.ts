import { Command, Option } from 'clipanion';
import { TracerCommand } from '../../cli/tracer-command.js';
import { ExitCode } from '../../core/errors.js';
import { findSetting, getPath } from '../../store/settings.js';
import { displayValue } from './display.js';
import { settingsFile } from './scope.js';

export class ConfigGetCommand extends TracerCommand {
  static override foldsSpoolFirst = false;
  static override paths = [['config', 'get']];
  static override usage = Command.Usage({
    category: 'Configuration',
    description: 'Print one setting',
    details:
      'Prints the value of a project setting, or with `--global` a global one. Exits 1 when the setting is not set. Secrets are masked.',
    examples: [
      ['Show the default remote', '$0 config get remote.default'],
      ['Show a global setting', '$0 config get --global telemetry.enabled'],
    ],
  });

  global = Option.Boolean('--global', false, { description: 'Read config.json instead of the project settings' });
  key = Option.String({ name: 'key' });

  async run() {
    const setting = findSetting(this.key, this.global ? 'global' : 'project');
    const value = getPath(await settingsFile(this.context.home, setting.scope, () => this.project()).read(), setting.path);
    if (value === undefined) return ExitCode.failure;
    this.print(displayValue(setting, value));
  }
}
