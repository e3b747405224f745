import { Command, Option } from 'clipanion';
import { TracerCommand } from '../../cli/tracer-command.js';
import { findSetting, parseSettingValue } from '../../store/settings.js';
import { applySetting } from '../config/apply.js';

/** Spec §5.2 rule 4: kept so old scripts keep working; the slot it writes is read by nothing that syncs. */
export class SetGlobalUserCommand extends TracerCommand {
  static override foldsSpoolFirst = false;
  static override paths = [['set', 'globaluser']];
  static override usage = Command.Usage({
    category: 'Configuration',
    description: 'Legacy: write the global token slot (never used by sync)',
    details: `
      Writes the token to the legacy \`auth_token\` slot of \`$TRACER_HOME/config.json\` (the same slot as \`tracer set global auth-token\`). Push, pull and sync never read it: each remote uses only the token bound to it. Migrate with \`tracer remote set-token <name> --token <TOKEN>\`.
    `,
    examples: [['What old scripts run (prefer remote set-token)', '$0 set globaluser <TOKEN>']],
  });

  token = Option.String({ name: 'token' });

  async run() {
    const setting = findSetting('auth-token', 'global');
    const value = parseSettingValue(setting, this.token);
    await applySetting(this.context.home, setting, () => this.project(), value);
    this.print('Wrote the legacy global token slot (auth_token in config.json).');
    this.context.stderr.write(`tracer: ${setting.hint}\n`);
  }
}
