// The service is a second gate: every uploaded transcript (blob or inline) and
// every text member of a family that declares one (a summary) is scanned with the
// same detectors capture uses (the service's plugin list: the built-in layers
// without team rules or personal data, plus any detector plugin it was given).
// One that still holds a finding is refused, 422 `secret_detected`, naming the
// rule and where, never the secret; nothing of the request is stored. Old clients
// and third-party uploaders meet it too. `tracer serve --allow-secrets` turns it off.
import type { FamilyDefinition } from '../kernel/families.js';
import type { Redactor } from './engine.js';
import { textMembers } from './text-members.js';
import { scanningStream, textRuns, type StreamFinding } from './stream.js';

/** An item of an upload that holds a finding: where, and the rule, as the problem's `errors[]` says it. */
export interface GateFinding {
  index: number;
  field: string;
  rule: string;
  line: number;
}

export class SecretGate {
  constructor(readonly redactor: Redactor) {}

  /** The findings of an upload's items, in their text members and inline bytes (`inlineBytes`: decoded, by index). */
  async findInItems(family: FamilyDefinition, items: readonly unknown[], inlineBytes: ReadonlyMap<number, Buffer>): Promise<GateFinding[]> {
    const findings: GateFinding[] = [];
    for (const [index, item] of items.entries()) {
      const record = item as Record<string, unknown>;
      for (const member of textMembers(family, record)) {
        const value = memberText(record[member]);
        if (value === undefined) continue;
        const [first] = await this.redactor.find(value);
        if (first) findings.push({ index, field: member, rule: first.rule, line: lineOf(value, first.start) });
      }
      const bytes = inlineBytes.get(index);
      if (bytes && family.blob && family.text?.blob) {
        const found = await this.findInBytes([bytes]);
        if (found) findings.push({ index, field: family.blob.inlineMember, ...found });
      }
    }
    return findings;
  }

  /** The first finding of some bytes, read as a stream would be. */
  async findInBytes(chunks: Iterable<Uint8Array>): Promise<StreamFinding | undefined> {
    for await (const { text, linesBefore } of textRuns(chunks)) {
      const [first] = await this.redactor.find(text);
      if (first) return { rule: first.rule, line: linesBefore + lineOf(text, first.start) };
    }
    return undefined;
  }

  /** A blob upload's bytes, passed on once scanned; `refuse` throws at the first finding, before anything is kept. */
  blobBytes(
    source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    refuse: (finding: StreamFinding) => never,
  ): AsyncIterable<Uint8Array> {
    return scanningStream(source, this.redactor, refuse);
  }
}

/**
 * A text member as the gate reads it: a string as it is, any other value (the wire contract leaves a
 * summary's members free: an array of paragraphs, an object of sections) as its JSON, whose strings the
 * detectors read decoded. Skipping what is not a string let any secret through in a one-element array.
 */
function memberText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  return value === undefined || value === null ? undefined : JSON.stringify(value);
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let index = text.indexOf('\n'); index !== -1 && index < offset; index = text.indexOf('\n', index + 1)) line += 1;
  return line;
}

/** The gate of a service whose plugins the kernel holds (the redact plugin's built-in layers, any detector plugin given with --plugins). */
export async function createSecretGate(
  kernel: import('../kernel/kernel.js').Kernel,
  where: { home: string; env: NodeJS.ProcessEnv },
): Promise<{ gate: SecretGate; detectors: number; problems: Array<{ code: string; message: string }> }> {
  const [{ buildRedactor }, { kernelDetectors }] = await Promise.all([import('./redactor.js'), import('./hooks.js')]);
  const { redactor, problems } = await buildRedactor(kernelDetectors(kernel), {
    purpose: 'serve',
    home: where.home,
    env: where.env,
    pii: false,
    fingerprint: 'none',
  });
  return { gate: new SecretGate(redactor), detectors: redactor.detectors.length, problems };
}
