import { Command, Option } from 'clipanion';
import * as t from 'typanion';
import { TracerCommand } from '../../cli/tracer-command.js';
import { parseRemoteUrl } from '../../core/remote-url.js';

export class TokenRevokeCommand extends TracerCommand {
  static override foldsSpoolFirst = false;
  static override paths = [['token', 'revoke']];
  static override usage = Command.Usage({
    category: 'Remotes',
    description: 'Revoke access tokens on a trace service',
    details: `
      Revokes, through the service's admin route (\`POST /api/v1/admin/tokens/revoke\`, authorized by \`TRACER_ADMIN_SECRET\`), every token named \`--name\` for the project of \`<url>\` (or, with \`--org-wide\`, the org-wide tokens of that name). They stop working at once, team view sessions opened with them end, and the revocation is in the service's audit log (\`tracer audit\`).
    `,
    examples: [
      [
        'Revoke the laptop token of acme/web',
        'TRACER_ADMIN_SECRET=s3cret $0 token revoke https://traces.example.com/acme/web --name laptop',
      ],
    ],
  });

  orgWide = Option.Boolean('--org-wide', false, { description: "Revoke the org-wide tokens of that name, not the project's" });
  name = Option.String('--name', {
    required: true,
    description: 'The name the tokens were created with',
    validator: t.cascade(t.isString(), t.matchesRegExp(/^[\x21-\x7e][\x20-\x7e]{0,99}$/)),
  });
  url = Option.String({ name: 'url' });

  async run() {
    // The HTTP client is the kernel's layer: loaded when a request is made, not for --help or a usage error.
    const { adminSecretFrom, revokeTokenOnService } = await import('../../server/admin-client.js');
    const target = parseRemoteUrl(this.url);
    const env = this.context.env;
    const revoked = await revokeTokenOnService(target, adminSecretFrom(env), { orgWide: this.orgWide, name: this.name }, env);
    const scope = this.orgWide ? `org ${target.org_slug}` : `project ${target.org_slug}/${target.project_slug}`;
    this.print(
      revoked === 0
        ? `No token named "${this.name}" for ${scope}; nothing changed.`
        : `Revoked ${revoked} token${revoked === 1 ? '' : 's'} named "${this.name}" for ${scope}.`,
    );
  }
}
