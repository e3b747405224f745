// `tracer/plugin/redact`: what a plugin that redacts uses. Light enough for the
// capture hooks, which load it only when there is text to redact: the detectors'
// own modules are imported when first needed. `tracer/plugin` re-exports all of
// it. Guide: docs/plugins.md, "A redaction detector".
import type { RegisteredFamily } from '../kernel/families.js';
import type { Kernel } from '../kernel/kernel.js';
import type { OutgoingRewrite, SyncSession } from '../kernel/types.js';
import { isMarkedRedacted } from '../redact/mark.js';
import type { RedactionDetector, RedactionScope } from '../redact/types.js';

export type {
  DetectedSecret,
  DetectorSet,
  RedactionDetector,
  RedactionProblem,
  RedactionPurpose,
  RedactionRule,
  RedactionScope,
} from '../redact/types.js';
export { redactionHooks, type RedactionHooks } from '../redact/hooks.js';
export { REDACTED_MEMBER } from '../redact/mark.js';
export type { TracerPlugin } from '../kernel/kernel.js';

/**
 * The built-in layers for this scope: secretlint's recommended preset and the
 * formats it lacks, password-style and high-entropy assignments, the team's
 * `.tracer/redact.json`, and personal data when `redact.pii` is on.
 */
export async function builtinDetectors(scope: RedactionScope): Promise<RedactionDetector[]> {
  // Loaded on first need: a tool use, a no-op push or a command without text to redact never parses the detectors.
  return (await import('../redact/builtin.js')).builtinDetectors(scope);
}

/**
 * A push's rewrite for a family whose records hold text (`FamilyDefinition.text`):
 * a record not marked redacted is scanned and, when it holds a secret, sent as a
 * redacted copy. Nothing is loaded until a record needs scanning.
 */
export function outgoingRedaction(kernel: Kernel, session: SyncSession, family: RegisteredFamily): OutgoingRewrite {
  let inner: Promise<OutgoingRewrite> | undefined;
  return {
    reason: 'redaction',
    async rewrite(record, store) {
      if (isMarkedRedacted(record)) return undefined;
      inner ??= import('../redact/outgoing.js').then((module) => module.outgoingRewrite(kernel, session, family));
      return (await inner).rewrite(record, store);
    },
  };
}
