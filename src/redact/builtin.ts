// The built-in layers, in the order their findings take precedence when two
// overlap: known formats (secretlint's preset, then the formats it lacks and
// password-style assignments), high-entropy assignments, the team's rules, and
// personal data when `redact.pii` is on. The built-in `redact` plugin adds them.
import { entropyDetector } from './layers/assignments.js';
import { formatDetectors } from './layers/formats.js';
import { piiDetectors } from './layers/pii.js';
import { secretlintDetector } from './layers/secretlint.js';
import { teamRulesDetector } from './layers/team-rules.js';
import type { RedactionDetector, RedactionScope } from './types.js';

export async function builtinDetectors(scope: RedactionScope): Promise<RedactionDetector[]> {
  const detectors = [secretlintDetector(), ...formatDetectors(), entropyDetector()];
  const team = await teamRulesDetector(scope);
  if (team) detectors.push(team);
  if (scope.pii) detectors.push(...piiDetectors());
  return detectors;
}
