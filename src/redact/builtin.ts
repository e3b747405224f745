// The built-in layers: known formats (secretlint's preset, then the formats it
// lacks), assignments (password-style, and high-entropy values of key- and
// token-like names), the team's rules, and personal data when `redact.pii` is
// on. Where two find the same secret, the first names it, the assignments (a
// catch-all) last. The built-in `redact` plugin adds them.
import { assignmentsDetector } from './layers/assignments.js';
import { formatDetectors } from './layers/formats.js';
import { piiDetectors } from './layers/pii.js';
import { secretlintDetector } from './layers/secretlint.js';
import { teamRulesDetector } from './layers/team-rules.js';
import type { RedactionDetector, RedactionScope } from './types.js';

export async function builtinDetectors(scope: RedactionScope): Promise<RedactionDetector[]> {
  const detectors = [secretlintDetector(), ...formatDetectors(), assignmentsDetector()];
  const team = await teamRulesDetector(scope);
  if (team) detectors.push(team);
  if (scope.pii) detectors.push(...piiDetectors());
  return detectors;
}
