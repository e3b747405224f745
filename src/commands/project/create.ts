import { Command, Option } from 'clipanion';
import { TracerCommand } from '../../cli/tracer-command.js';
import { parseRemoteUrl } from '../../core/remote-url.js';

export class ProjectCreateCommand extends TracerCommand {
  static override foldsSpoolFirst = false;
  static override usesKernel = true;
  static override paths = [['project', 'create']];
  static override usage = Command.Usage({
    category: 'Remotes',
    description: 'Register a project on a trace service',
    details: `
      Registers the org and project slugs of \`<url>\` on the service, through its admin route (\`POST /api/v1/admin/projects\`), authorized by \`TRACER_ADMIN_SECRET\` (the service's own admin secret, which only this command, \`remote add --create\` and the service's admin commands, \`token create\` and \`token revoke\`, read). A project that already exists is left as it is.

      The URL has one of the two remote shapes: \`<scheme>://<host>[:port]/<org_slug>/<project_slug>\` or \`<scheme>://<host>[:port]/gw/<org_slug>/<project_slug>\`.
    `,
    examples: [['Register acme/web on a service', 'TRACER_ADMIN_SECRET=s3cret $0 project create https://traces.example.com/acme/web']],
  });

  url = Option.String({ name: 'url' });

  async run() {
    // The HTTP client is the kernel's layer: loaded when a request is made, not for --help or a usage error.
    const { adminSecretFrom, registerProjectOnService } = await import('../../server/admin-client.js');
    const target = parseRemoteUrl(this.url);
    const adminSecret = adminSecretFrom(this.context.env);
    // Spec §4.4: the scope pre-flight, with the token of this project's remote for the same URL when there is one.
    const { checkScopeForUrl } = await import('../../engine/scope-check.js');
    for (const warning of await checkScopeForUrl(await this.kernel(), target.url)) this.warn(warning);
    const registered = await registerProjectOnService(target, adminSecret, this.context.env);
    const where = `${registered.org_slug}/${registered.project_slug} on ${target.base_url}`;
    this.print(registered.created ? `Created project ${where}` : `Project ${where} already exists; nothing changed`);
  }
}
