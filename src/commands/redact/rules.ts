import { Command, Option } from 'clipanion';
import { reportWarnings } from '../../cli/report.js';
import { TracerCommand } from '../../cli/tracer-command.js';

export class RedactRulesCommand extends TracerCommand {
  static override foldsSpoolFirst = false;
  static override usesKernel = true;
  static override paths = [['redact', 'rules']];
  static override usage = Command.Usage({
    category: 'Capture',
    description: 'List the redaction rules capture applies here, and where each comes from',
    details: `
      Every rule of every detector the enabled plugins bring, in the order their findings take precedence: the built-in layers (secretlint's recommended preset, the formats it lacks, password-style and high-entropy assignments), the team's \`.tracer/redact.json\`, personal data when \`redact.pii\` is on, and any organization plugin's detectors.

      Exits with \`redact_rule_invalid\` (exit 3) when the team's file is refused: a rule that does not match one of its samples, a pattern that is not a regular expression, or a file that is not valid JSON. Capture then applies the built-in rules only.
    `,
    examples: [
      ['List the rules', '$0 redact rules'],
      ['The same as JSON', '$0 redact rules --json'],
    ],
  });

  json = Option.Boolean('--json', false, { description: 'Print {"rules": [{"id", "description", "detector", "source"}]} on stdout' });

  async run() {
    const { commandRedactor } = await import('../../redact/check.js');
    const { redactor, warnings } = await commandRedactor(await this.kernel(), 'check');
    try {
      const rules = redactor.detectors.flatMap((detector) =>
        (detector.rules ?? [{ id: detector.id, description: detector.description ?? '' }]).map((rule) => ({
          id: rule.id,
          description: rule.description,
          detector: detector.id,
          source: detector.source,
        })),
      );
      reportWarnings(warnings, this.context.stderr);
      if (this.json) return this.printJson({ rules });
      if (rules.length === 0) return this.print('No redaction rules: no enabled plugin brings a detector (tracer plugins shows the list).');
      const width = Math.max(4, ...rules.map((rule) => rule.id.length));
      const sourceWidth = Math.max(6, ...rules.map((rule) => rule.source.length));
      this.print(`${'RULE'.padEnd(width)}  ${'SOURCE'.padEnd(sourceWidth)}  DESCRIPTION`);
      for (const rule of rules) this.print(`${rule.id.padEnd(width)}  ${rule.source.padEnd(sourceWidth)}  ${rule.description}`);
    } finally {
      await redactor.close();
    }
  }
}
