import { Command, Option } from 'clipanion';
import { TracerCommand } from '../../cli/tracer-command.js';
import { findSetting, parseSettingValue } from '../../store/settings.js';
import { applySetting } from './apply.js';

export class ConfigSetCommand extends TracerCommand {
  static override foldsSpoolFirst = false;
  static override paths = [['config', 'set']];
  static override usage = Command.Usage({
    category: 'Configuration',
    description: 'Change one setting',
    details:
      'Sets a project setting (project-config.json), or with `--global` a global one (config.json). Unknown keys are refused with the list of known ones; see `tracer config list` for all of them.',
    examples: [
      ['Choose the default remote', '$0 config set remote.default origin'],
      ['Turn off telemetry', '$0 config set --global telemetry.enabled false'],
      ['Switch off a plugin for this project', '$0 config set plugins "!summaries"'],
    ],
  });

  global = Option.Boolean('--global', false, { description: 'Write config.json instead of the project settings' });
  key = Option.String({ name: 'key' });
  value = Option.String({ name: 'value' });

  async run() {
    const setting = findSetting(this.key, this.global ? 'global' : 'project');
    const value = parseSettingValue(setting, this.value);
    await applySetting(this.context.home, setting, () => this.project(), value);
    this.print(`Set ${setting.key}${setting.secret ? '' : ` = ${typeof value === 'string' ? value : JSON.stringify(value)}`}`);
    if (setting.hint) this.context.stderr.write(`tracer: ${setting.hint}\n`);
  }
}
