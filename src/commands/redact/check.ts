import { Command, Option } from 'clipanion';
import { reportWarnings } from '../../cli/report.js';
import { TracerCommand } from '../../cli/tracer-command.js';
import { ExitCode } from '../../core/errors.js';

export class RedactCheckCommand extends TracerCommand {
  static override foldsSpoolFirst = false;
  static override usesKernel = true;
  static override paths = [['redact', 'check']];
  static override usage = Command.Usage({
    category: 'Capture',
    description: 'Say what redaction would take out of a file or stdin',
    details: `
      Runs the rules capture applies in this folder (the enabled plugins' detectors, the team's \`.tracer/redact.json\` included, personal data when \`redact.pii\` is on) over FILE, or stdin with \`-\` or when piped, and prints each finding: its line and column, the rule, and a preview with every secret on the line masked. The secret itself is never printed.

      Exits 1 when anything would be redacted and 0 when nothing would, so it fits a pre-commit hook or a CI step. A \`.tracer/redact.json\` that is refused stops it with \`redact_rule_invalid\` (exit 3).
    `,
    examples: [
      ['Check a file', '$0 redact check .env.example'],
      ['Check what is staged, in a pre-commit hook', 'git diff --cached | $0 redact check -'],
      ['The findings as JSON', '$0 redact check notes.md --json'],
    ],
  });

  file = Option.String({ required: false, name: 'FILE|-' });
  json = Option.Boolean('--json', false, { description: 'Print {"findings": [{"rule", "line", "column", "preview"}]} on stdout' });

  async run() {
    const { commandRedactor, checkInput, openInput, unreadableInput } = await import('../../redact/check.js');
    const { redactor, warnings } = await commandRedactor(await this.kernel(), 'check');
    try {
      const input = openInput(this.file, this.context.stdin, this.context.cwd);
      let findings;
      try {
        findings = await checkInput(redactor, input);
      } catch (error) {
        if (this.file && this.file !== '-' && (error as NodeJS.ErrnoException).code) throw unreadableInput(this.file, error);
        throw error;
      }
      reportWarnings(warnings, this.context.stderr);
      if (this.json) this.printJson({ findings });
      else if (findings.length === 0) this.print(`Nothing to redact in ${this.where()}.`);
      else {
        for (const finding of findings)
          this.print(`${this.where()}:${finding.line}:${finding.column}  ${finding.rule}  ${finding.preview}`);
        this.context.stderr.write(
          `tracer: ${findings.length} finding${findings.length === 1 ? '' : 's'}: capture would redact ${findings.length === 1 ? 'it' : 'them'}; keep secrets out of what you commit and share.\n`,
        );
      }
      return findings.length > 0 ? ExitCode.failure : ExitCode.ok;
    } finally {
      await redactor.close();
    }
  }

  private where(): string {
    return this.file === undefined || this.file === '-' ? 'stdin' : this.file;
  }
}
