// A Redactor from a source of detectors (a kernel's plugins: every tap of
// `redactionHooks(kernel).detectors` adds its own for this scope), and problems
// (a team file refused, a plugin failing) collected rather than thrown.
import { Redactor } from './engine.js';
import { homeFingerprint } from './placeholder.js';
import { piiEnabled } from './settings.js';
import type { DetectorSource, RedactionDetector, RedactionProblem, RedactionScope } from './types.js';

export interface RedactorRequest {
  purpose: RedactionScope['purpose'];
  home: string;
  root?: string;
  projectDir?: string;
  env: NodeJS.ProcessEnv;
  /** Default: the `redact.pii` setting. */
  pii?: boolean;
  /** Placeholders need the home's salt; the service's gate only finds. `ephemeral`: a salt for this run when the home has none to give. */
  fingerprint: 'home' | 'ephemeral' | 'none';
  /** Each problem as it happens (capture logs it); they are also kept in `problems`. */
  onProblem?: (problem: RedactionProblem) => void;
}

export interface BuiltRedactor {
  redactor: Redactor;
  /** Problems met while the detectors were gathered (and, later, while they ran). */
  problems: RedactionProblem[];
}

export async function buildRedactor(source: DetectorSource, request: RedactorRequest): Promise<BuiltRedactor> {
  const problems: RedactionProblem[] = [];
  const report = (problem: RedactionProblem) => {
    problems.push(problem);
    request.onProblem?.(problem);
  };
  const scope: RedactionScope = {
    purpose: request.purpose,
    home: request.home,
    root: request.root,
    projectDir: request.projectDir,
    env: request.env,
    pii: request.pii ?? (await piiEnabled(request.home, request.projectDir)),
    report,
  };
  const detectors: RedactionDetector[] = [];
  await source({ add: (...added) => detectors.push(...added) }, scope);
  const fingerprint =
    request.fingerprint === 'none' ? undefined : await homeFingerprint(request.home, { ephemeral: request.fingerprint === 'ephemeral' });
  return { redactor: new Redactor(detectors, { fingerprint, report }), problems };
}
