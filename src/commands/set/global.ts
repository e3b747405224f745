import { Command, Option } from 'clipanion';
import { TracerCommand } from '../../cli/tracer-command.js';
import { findSetting, parseSettingValue } from '../../store/settings.js';
import { applySetting } from '../config/apply.js';

export class SetGlobalCommand extends TracerCommand {
  static override foldsSpoolFirst = false;
  static override paths = [['set', 'global']];
  static override usage = Command.Usage({
    category: 'Configuration',
    description: 'Change one global setting (config.json)',
    details: `
      The same as \`tracer config set --global <key> <value>\`. The key may be written with or without the \`global.\` prefix; unknown keys are refused with the list of known ones (\`tracer config list --global\`).

      \`auth-token\` is the legacy global token slot: it is written for old scripts, but push, pull and sync never read it. Bind tokens to remotes with \`tracer remote set-token <name> --token <TOKEN>\`.
    `,
    examples: [
      ['Turn off telemetry', '$0 set global telemetry.enabled false'],
      ['Capture edits made outside any repository', '$0 set global capture_detached_edits true'],
    ],
  });

  key = Option.String({ name: 'key' });
  value = Option.String({ name: 'value' });

  async run() {
    const setting = findSetting(this.key, 'global');
    const value = parseSettingValue(setting, this.value);
    await applySetting(this.context.home, setting, () => this.project(), value);
    this.print(`Set global ${setting.key}${setting.secret ? '' : ` = ${typeof value === 'string' ? value : JSON.stringify(value)}`}`);
    if (setting.hint) this.context.stderr.write(`tracer: ${setting.hint}\n`);
  }
}
