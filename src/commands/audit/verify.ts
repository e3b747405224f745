import { Command, Option } from 'clipanion';
import { TracerCommand } from '../../cli/tracer-command.js';
import { ExitCode, TracerError } from '../../core/errors.js';
import { verifyChain } from '../../core/audit-chain.js';
import { parseRemoteUrl } from '../../core/remote-url.js';

export class AuditVerifyCommand extends TracerCommand {
  static override foldsSpoolFirst = false;
  static override usesKernel = true;
  static override paths = [['audit', 'verify']];
  static override usage = Command.Usage({
    category: 'Service',
    description: "Check that a trace service's audit log was not edited or cut",
    details: `
      Reads the whole audit log of the org of \`<url>\` and checks its hash chain here: each entry's hash is the SHA-256 of its canonical JSON, each entry carries the hash of the one before, and the service's head names the last. Exits 0 when every entry verifies; otherwise exits 7 naming the first entry that does not (edited, removed, or added out of turn).

      Needs the whole chain: \`TRACER_ADMIN_SECRET\`, or an org-wide admin token (\`--token-env <VAR>\`, or the token of this project's remote for \`<url>\`).
    `,
    examples: [['Verify acme', 'TRACER_ADMIN_SECRET=s3cret $0 audit verify https://traces.example.com/acme/web']],
  });

  tokenEnv = Option.String('--token-env', { description: 'Environment variable holding an org-wide admin token' });
  url = Option.String({ name: 'url' });

  async run() {
    const target = parseRemoteUrl(this.url);
    const { auditCredential, readAuditLog } = await import('../../audit/client.js');
    const credential = await auditCredential(await this.kernel(), target, this.tokenEnv);
    const log = await readAuditLog(await this.kernel(), target, credential);
    if (log.scope !== 'org' || !log.head)
      throw new TracerError(
        'audit_scope_too_narrow',
        `A project admin token sees only its project's entries, and the chain is the org's; verify with an org-wide admin token or ${'TRACER_ADMIN_SECRET'}.`,
        { exitCode: ExitCode.auth },
      );
    const broken = verifyChain(log.entries, log.head);
    if (broken)
      throw new TracerError('audit_chain_broken', `Entry ${broken.n} of the audit log of org ${log.org_slug} ${broken.reason}.`, {
        exitCode: ExitCode.validation,
      });
    this.print(`The audit log of org ${log.org_slug} verifies: ${log.entries.length} entries, head ${log.head.hash.slice(0, 16)}.`);
  }
}
