import { Command, Option } from 'clipanion';
import { parseSince } from '../../cli/since.js';
import { TracerCommand } from '../../cli/tracer-command.js';
import { parseRemoteUrl } from '../../core/remote-url.js';

export class AuditListCommand extends TracerCommand {
  static override foldsSpoolFirst = false;
  static override usesKernel = true;
  static override paths = [['audit']];
  static override usage = Command.Usage({
    category: 'Service',
    description: "Read a trace service's audit log",
    details: `
      Lists who did what on the service for the org of \`<url>\`: team view sign-ins, token creation and revocation, every transcript read (pulled or opened in the team view), every forget and retention run, with time, token name, scope and what was touched (never the content). A project admin token sees its project's entries.

      Authorized by an admin token (\`--token-env <VAR>\`, or the token of this project's remote for \`<url>\`) or by \`TRACER_ADMIN_SECRET\`. \`tracer audit verify\` checks that nothing was edited or removed.
    `,
    examples: [
      ['The last day of acme', 'TRACER_ADMIN_SECRET=s3cret $0 audit https://traces.example.com/acme/web --since 2026-11-25'],
      ['As JSON, with an admin token from a variable', '$0 audit https://traces.example.com/acme/web --token-env ACME_ADMIN --json'],
    ],
  });

  since = Option.String('--since', { description: 'Only entries at or after this ISO-8601 date or date-time' });
  tokenEnv = Option.String('--token-env', { description: 'Environment variable holding an admin token' });
  json = Option.Boolean('--json', false, { description: 'Print the entries as one JSON object' });
  url = Option.String({ name: 'url' });

  async run() {
    const since = parseSince(this.since);
    const target = parseRemoteUrl(this.url);
    const { auditCredential, readAuditLog } = await import('../../audit/client.js');
    const credential = await auditCredential(await this.kernel(), target, this.tokenEnv);
    const log = await readAuditLog(await this.kernel(), target, credential, since);
    if (this.json) return this.printJson(log);
    if (log.entries.length === 0)
      return this.print(
        `No audit entries for ${log.scope === 'org' ? `org ${log.org_slug}` : 'this project'}${since ? ` since ${since}` : ''}.`,
      );
    for (const { n, entry } of log.entries) this.print(describe(n, entry as Record<string, unknown>));
  }
}

function describe(n: number, entry: Record<string, unknown>): string {
  const actor = entry.actor as { kind?: string; token_name?: string; role?: string } | undefined;
  const who = actor?.kind === 'token' ? `${actor.token_name} (${actor.role})` : actor?.kind === 'admin_secret' ? 'admin secret' : 'service';
  const where = entry.project_slug ? `${entry.org_slug}/${entry.project_slug}` : String(entry.org_slug);
  return `#${n}  ${String(entry.ts)}  ${String(entry.action).padEnd(16)}  ${who}  ${where}  ${JSON.stringify(entry.target ?? {})}`;
}
