import { Command, Option } from 'clipanion';
import { TracerCommand } from '../../cli/tracer-command.js';
import { ExitCode, TracerError, type TracerWarning } from '../../core/errors.js';
import { parseRemoteUrl } from '../../core/remote-url.js';
import { updateProjectConfig } from '../../store/config-files.js';
import { globalTokenKey } from '../../store/credentials.js';
import type { Project } from '../../store/project.js';
import { checkRemoteName, readRemotes, remoteRecord, updateRemotes, type RemoteRecord } from '../../store/remotes.js';
import {
  authFor,
  deleteStoredTokens,
  describeChoice,
  storeToken,
  tokenChoice,
  TOKEN_ENV_OPTION_DESCRIPTION,
  TOKEN_OPTION_DESCRIPTION,
  type TokenChoice,
} from './token-binding.js';

/** Everything `remote add` will write, checked before anything is written. */
export interface RemoteAddPlan {
  project: Project;
  name: string;
  record: RemoteRecord;
  token?: TokenChoice;
  makeDefault: boolean;
}

export class RemoteAddCommand extends TracerCommand {
  static override foldsSpoolFirst = false;
  static override usesKernel = true;
  static override paths = [['remote', 'add']];
  static override usage = Command.Usage({
    category: 'Remotes',
    description: 'Register a named remote trace service',
    details: `
      The URL must have one of the two shapes \`<scheme>://<host>[:port]/<org_slug>/<project_slug>\` or \`<scheme>://<host>[:port]/gw/<org_slug>/<project_slug>\` (behind a gateway); each slug matches \`^[a-z0-9][a-z0-9._-]{0,63}$\`.

      The remote is written to the project's \`remotes.json\` (mode 0600) with the org and project slugs and base URL derived from the URL. \`--token\` stores the secret in \`$TRACER_HOME/config.json\` (mode 0600) and binds it with \`token_ref: global:<project_id>::<name>\`; \`--token-env\` records only the variable's name (\`env:<VAR>\`). No other token (\`TRACER_TOKEN\`, the legacy global slot) is ever used for this remote.

      With \`--default\`, the remote becomes \`remote.default\`; a project's sole remote is its default anyway.

      Before anything is written, the token's scope is checked with the service (\`GET /api/v1/auth/whoami\`): a token of another org or project is refused. With \`--create\`, the project is then registered on the service through its admin route, with the secret in \`TRACER_ADMIN_SECRET\` (read by no other command but \`project create\` and the service's admin commands, \`token create\` and \`token revoke\`); if that fails, no remote is added. A token the service refuses, or a \`--token-env\` variable not set here, adds the remote with the warning \`scope_unchecked\`.
    `,
    examples: [
      ['Add a remote with a stored token', '$0 remote add origin https://traces.example.com/acme/web --token <TOKEN>'],
      [
        'Add a remote behind a gateway that reads its token from $TRACES_TOKEN',
        '$0 remote add work https://gw.example.com/gw/acme/web --token-env TRACES_TOKEN',
      ],
      [
        'Add a second remote and make it the default',
        '$0 remote add backup http://localhost:8080/acme/web --token-env BACKUP_TOKEN --default',
      ],
      [
        'Add a remote and register its project on the service',
        'TRACER_ADMIN_SECRET=<SECRET> $0 remote add origin http://localhost:8787/acme/web --token <TOKEN> --create',
      ],
    ],
  });

  token = Option.String('--token', { description: TOKEN_OPTION_DESCRIPTION });
  tokenEnv = Option.String('--token-env', { description: TOKEN_ENV_OPTION_DESCRIPTION });
  makeDefault = Option.Boolean('--default', false, { description: 'Make this remote the default one (remote.default)' });
  create = Option.Boolean('--create', false, { description: 'Also register the project on the service (reads TRACER_ADMIN_SECRET)' });
  name = Option.String({ name: 'name' });
  url = Option.String({ name: 'url' });

  async run() {
    const plan = await this.plan();
    const warnings = await this.checkScope(plan);
    const registered = this.create ? await this.registerProject(plan) : undefined;
    await this.write(plan);
    for (const warning of warnings) this.warn(warning);
    this.print(`Added remote ${plan.name}: ${plan.record.url}`);
    this.print(`  org_slug: ${plan.record.org_slug}, project_slug: ${plan.record.project_slug}`);
    this.print(`  token: ${describeChoice(plan.token, plan.record.auth)}`);
    if (plan.makeDefault) this.print(`  default: yes (remote.default = ${plan.name})`);
    if (registered) this.print(`  project: ${registered.created ? 'created' : 'already registered'} on ${plan.record.base_url}`);
  }

  /** `--create` (spec §5.2 rule 3): the admin secret comes from TRACER_ADMIN_SECRET only, after the pre-flight. */
  protected async registerProject(plan: RemoteAddPlan) {
    const { adminSecretFrom, registerProjectOnService } = await import('../../server/admin-client.js');
    const { env } = this.context;
    return registerProjectOnService(parseRemoteUrl(plan.record.url), adminSecretFrom(env), env);
  }

  /** Validates the name, the URL grammar and the token flags, and that the name is free. */
  protected async plan(): Promise<RemoteAddPlan> {
    const name = checkRemoteName(this.name);
    const token = tokenChoice(this.token, this.tokenEnv);
    const project = this.project();
    const record = remoteRecord(this.url, token ? authFor(token, project.id, name) : undefined);
    if ((await readRemotes(project.dir)).remotes[name]) throw remoteExists(name);
    return { project, name, record, token, makeDefault: this.makeDefault };
  }

  /**
   * The whoami scope pre-flight (spec §4.4), after every local check and before
   * anything is written: a token for another org or project refuses the remote.
   */
  protected async checkScope(plan: RemoteAddPlan): Promise<TracerWarning[]> {
    const token = plan.token?.kind === 'global' ? plan.token.token : plan.token ? this.context.env[plan.token.variable] : undefined;
    if (plan.token?.kind === 'env' && !token)
      return [
        {
          code: 'scope_unchecked',
          message: `${plan.token.variable} is not set here, so the token's scope was not checked; run tracer doctor where it is set.`,
        },
      ];
    if (!token) return [];
    const { checkTokenScope } = await import('../../engine/scope-check.js');
    const source = plan.token?.kind === 'env' ? `env:${plan.token.variable}` : '--token';
    // The transport that asks the server is a plugin's: only a remote with a token boots the kernel.
    return checkTokenScope(await this.kernel(), plan.project, plan.name, plan.record, token, source);
  }

  /**
   * remotes.json first, then the secret: if storing the secret fails the record is
   * taken back, so no remote is left pointing at a token that was never written.
   */
  protected async write(plan: RemoteAddPlan): Promise<void> {
    const { home } = this.context;
    await updateRemotes(plan.project.dir, (file) => {
      if (file.remotes[plan.name]) throw remoteExists(plan.name);
      file.remotes[plan.name] = plan.record;
    });
    try {
      if (plan.token?.kind === 'global') await storeToken(home, globalTokenKey(plan.project.id, plan.name), plan.token.token);
      if (plan.makeDefault)
        await updateProjectConfig(plan.project.dir, (config) => void (config.remote = { ...(config.remote ?? {}), default: plan.name }));
    } catch (error) {
      const remaining = await updateRemotes(plan.project.dir, (file) => void delete file.remotes[plan.name]).catch(() => undefined);
      if (remaining && plan.token?.kind === 'global')
        await deleteStoredTokens(home, [globalTokenKey(plan.project.id, plan.name)], remaining).catch(() => undefined);
      throw error;
    }
  }
}

function remoteExists(name: string): TracerError {
  return new TracerError(
    'remote_exists',
    `A remote named "${name}" already exists; change it with tracer remote set-url / set-token, or pick another name.`,
    {
      exitCode: ExitCode.usage,
    },
  );
}
