import { Command, Option, UsageError } from 'clipanion';
import { reportWarnings } from '../../cli/report.js';
import { TracerCommand } from '../../cli/tracer-command.js';

export class RedactStoreCommand extends TracerCommand {
  static override usesKernel = true;
  static override paths = [['redact']];
  static override usage = Command.Usage({
    category: 'Capture',
    description: "Redact this project's local store in place",
    details: `
      With \`--store\`, rewrites what this project keeps of its conversations (transcript snapshots, summaries) with the rules capture applies today: data captured before redaction existed, or before a team rule was added, loses its secrets here. Each file is replaced atomically (a crash leaves the old one or the new one); transcript bytes that held a secret are replaced in the cache and the old bytes removed.

      What cannot be undone here: a secret already pushed to a service stays there until it is deleted on that service, and a teammate who pulled it keeps it until they run this too. A push after this sends the redacted copies; the service refuses anything still holding a secret.

      \`tracer redact check\` tells what would be redacted in a file; \`tracer redact rules\` lists the rules.
    `,
    examples: [['Redact the local store', '$0 redact --store']],
  });

  store = Option.Boolean('--store', false, {
    description: "Rewrite this project's stored transcripts and summaries with secrets redacted",
  });

  async run() {
    if (!this.store) {
      throw new UsageError(
        'Say what to redact: tracer redact --store rewrites the local store, tracer redact check FILE checks a file, tracer redact rules lists the rules',
      );
    }
    const project = this.project();
    const { commandRedactor } = await import('../../redact/check.js');
    const { redactStore } = await import('../../redact/store.js');
    const { redactor, warnings } = await commandRedactor(await this.kernel(), 'store');
    try {
      const reports = await redactStore(await this.kernel(), project.dir, redactor);
      reportWarnings(warnings, this.context.stderr);
      for (const report of reports) {
        if (report.skipped) this.print(`${report.family}: left as it is (${report.skipped})`);
        else this.print(`${report.family}: ${report.replaced === 0 ? 'nothing to redact' : `${report.replaced} redacted`}`);
      }
      if (reports.some((report) => report.replaced > 0))
        this.print('A secret already pushed stays on that service until it is deleted there; the next push sends the redacted copies.');
    } finally {
      await redactor.close();
    }
  }
}
