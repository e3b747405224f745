import { Command, Option } from 'clipanion';
import * as t from 'typanion';
import { TracerCommand } from '../../cli/tracer-command.js';
import { parseRemoteUrl } from '../../core/remote-url.js';

export class TokenCreateCommand extends TracerCommand {
  static override foldsSpoolFirst = false;
  static override paths = [['token', 'create']];
  static override usage = Command.Usage({
    category: 'Remotes',
    description: 'Create an access token on a trace service',
    details: `
      Creates a token through the service's admin route (\`POST /api/v1/admin/tokens\`), authorized by \`TRACER_ADMIN_SECRET\`. By default the token reaches only the project of \`<url>\` (which must be registered: \`tracer project create\`); with \`--org-wide\` it reaches every project of the URL's org and nothing else.

      \`--role\` says what it may do: \`push\` uploads and checks what the service holds, but pulls no transcript and opens none in the team view; \`read\` (the default) may also pull and open transcripts; \`admin\` may also forget (\`tracer forget\`), set retention and read the audit log (\`tracer audit\`), within its scope.

      The token alone is printed on stdout, once: the service keeps only its hash. Bind it with \`tracer remote add <name> <url> --token <TOKEN>\`.
    `,
    examples: [
      ['A token for acme/web', 'TRACER_ADMIN_SECRET=s3cret $0 token create https://traces.example.com/acme/web --name laptop'],
      [
        'An upload-only token for a build machine',
        'TRACER_ADMIN_SECRET=s3cret $0 token create https://traces.example.com/acme/web --role push --name ci',
      ],
      [
        'An org-wide token for CI, into a variable',
        'TOKEN=$(TRACER_ADMIN_SECRET=s3cret $0 token create https://traces.example.com/acme/web --org-wide --name ci)',
      ],
    ],
  });

  orgWide = Option.Boolean('--org-wide', false, { description: "Reach every project of the URL's org, not just its project" });
  role = Option.String('--role', 'read', {
    description:
      'push (upload only), read (also pull and open transcripts; the default) or admin (also forget, set retention, read the audit log)',
    validator: t.isEnum(['push', 'read', 'admin'] as const),
  });
  name = Option.String('--name', 'tracer-cli', {
    description: 'A label for the token, shown by whoami (default tracer-cli)',
    validator: t.cascade(t.isString(), t.matchesRegExp(/^[\x21-\x7e][\x20-\x7e]{0,99}$/)),
  });
  url = Option.String({ name: 'url' });

  async run() {
    // The HTTP client is the kernel's layer: loaded when a request is made, not for --help or a usage error.
    const { adminSecretFrom, createTokenOnService } = await import('../../server/admin-client.js');
    const target = parseRemoteUrl(this.url);
    const adminSecret = adminSecretFrom(this.context.env);
    const created = await createTokenOnService(
      target,
      adminSecret,
      { orgWide: this.orgWide, name: this.name, role: this.role },
      this.context.env,
    );
    this.print(created.token);
    const reach =
      created.scope === 'org' ? `every project of org ${created.org_slug}` : `project ${created.org_slug}/${created.project_slug}`;
    this.context.stderr.write(
      `Created token "${created.name}" (role ${created.role ?? this.role}) for ${reach}. It is shown only this once; bind it with tracer remote add <name> ${target.url} --token <TOKEN>.\n`,
    );
  }
}
