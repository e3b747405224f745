import { Command, Option } from 'clipanion';
import { TracerCommand } from '../../cli/tracer-command.js';
import { getPath, SETTINGS } from '../../store/settings.js';
import { displayValue } from './display.js';
import { settingsFile } from './scope.js';

export class ConfigListCommand extends TracerCommand {
  static override foldsSpoolFirst = false;
  static override paths = [['config', 'list']];
  static override usage = Command.Usage({
    category: 'Configuration',
    description: 'List every setting with its value and meaning',
    details:
      'Prints every known project setting (or with `--global` every global one), its current value or `(unset)`, and what it does. Secrets are masked.',
    examples: [
      ['List the project settings', '$0 config list'],
      ['List the global settings as JSON', '$0 config list --global --json'],
    ],
  });

  global = Option.Boolean('--global', false, { description: 'List config.json settings instead of the project ones' });
  json = Option.Boolean('--json', false, { description: 'Print a JSON array instead of text' });

  async run() {
    const scope = this.global ? 'global' : 'project';
    const config = await settingsFile(this.context.home, scope, () => this.project()).read();
    const rows = SETTINGS.filter((setting) => setting.scope === scope).map((setting) => {
      const value = getPath(config, setting.path);
      return {
        key: setting.key,
        scope,
        set: value !== undefined,
        value: value === undefined ? null : setting.secret ? displayValue(setting, value) : value,
        secret: Boolean(setting.secret),
        description: setting.description,
      };
    });
    if (this.json) {
      this.printJson(rows);
      return;
    }
    const width = Math.max(...rows.map((row) => row.key.length));
    for (const row of rows) {
      const shown = row.set ? (typeof row.value === 'string' ? row.value : JSON.stringify(row.value)) : '(unset)';
      this.print(`${row.key.padEnd(width)}  ${shown}  # ${row.description}`);
    }
  }
}
