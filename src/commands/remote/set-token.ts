import { Command, Option, UsageError } from 'clipanion';
import { TracerCommand } from '../../cli/tracer-command.js';
import { globalTokenKey } from '../../store/credentials.js';
import { readRemotes, requireRemote, updateRemotes } from '../../store/remotes.js';
import {
  authFor,
  deleteStoredTokens,
  describeChoice,
  storedTokenKey,
  storeToken,
  tokenChoice,
  TOKEN_ENV_OPTION_DESCRIPTION,
  TOKEN_OPTION_DESCRIPTION,
} from './token-binding.js';

export class RemoteSetTokenCommand extends TracerCommand {
  static override foldsSpoolFirst = false;
  static override paths = [['remote', 'set-token']];
  static override usage = Command.Usage({
    category: 'Remotes',
    description: 'Bind a token to a remote, or rotate it',
    details: `
      \`--token\` stores the secret in \`$TRACER_HOME/config.json\` (mode 0600) under \`tokens.<project_id>::<name>\` and points the remote's \`token_ref\` at it. \`--token-env\` records only the variable's name; a secret previously stored for this remote is then deleted. Exactly one of the two is required.

      This is also the migration from the legacy global token slot (\`tracer set globaluser\`), which push, pull and sync never read.
    `,
    examples: [
      ['Rotate the stored token of origin', '$0 remote set-token origin --token <TOKEN>'],
      ['Read the token of origin from $TRACES_TOKEN instead', '$0 remote set-token origin --token-env TRACES_TOKEN'],
    ],
  });

  token = Option.String('--token', { description: TOKEN_OPTION_DESCRIPTION });
  tokenEnv = Option.String('--token-env', { description: TOKEN_ENV_OPTION_DESCRIPTION });
  name = Option.String({ name: 'name' });

  async run() {
    const choice = tokenChoice(this.token, this.tokenEnv);
    if (!choice) throw new UsageError('Give the token with --token <TOKEN> or --token-env <VAR>');
    const project = this.project();
    const { home } = this.context;
    const previousKey = storedTokenKey(requireRemote(await readRemotes(project.dir), this.name));
    const auth = authFor(choice, project.id, this.name);
    // The secret first: the ref must never point at a key that holds nothing.
    if (choice.kind === 'global') await storeToken(home, globalTokenKey(project.id, this.name), choice.token);
    const remotes = await updateRemotes(project.dir, (file) => {
      file.remotes[this.name] = { ...requireRemote(file, this.name), auth };
    });
    const newKey = storedTokenKey(remotes.remotes[this.name]);
    const deleted = previousKey && previousKey !== newKey ? await deleteStoredTokens(home, [previousKey], remotes) : [];
    this.print(`Token of remote ${this.name}: ${describeChoice(choice, auth)}`);
    if (deleted.length > 0) this.print('  the previously stored token was deleted from config.json');
  }
}
