// What redaction is made of, shared by capture, push, `tracer redact` and the
// service's gate. A detector finds secrets in text; the engine (engine.ts) runs
// every detector a plugin adds, replaces what they find with a placeholder, and
// never lets a detector's failure stop the others.

/** One secret a detector found: `[start, end)` in the text it was given. */
export interface DetectedSecret {
  start: number;
  end: number;
  /**
   * The rule that found it, lowercase with dashes (`aws-secret-access-key`): the
   * placeholder's kind. Defaults to the detector's id.
   */
  rule?: string;
}

/** A rule a detector applies, as `tracer redact rules` lists it. */
export interface RedactionRule {
  id: string;
  description: string;
}

/**
 * A detector, as a plugin adds it through `redactionHooks(kernel).detectors`.
 * Detectors see text, never files: a JSON line is given to them whole and, where
 * its strings hold escapes, string by string as well, decoded.
 */
export interface RedactionDetector {
  /** Names the detector in messages and in `tracer redact rules`. */
  id: string;
  /** Where it comes from, for `tracer redact rules`: `built-in`, `.tracer/redact.json`, a plugin's name. */
  source: string;
  /** The rules it reports findings under; `[{ id, description }]` of the detector itself when omitted. */
  rules?: readonly RedactionRule[];
  description?: string;
  /**
   * A cheap test: text it does not match is never given to `detect`. Most of a
   * transcript holds no secret, and one pass of every detector's trigger over it
   * is what redaction costs there. Without one, `detect` sees all text.
   */
  trigger?: RegExp;
  /**
   * How far after its trigger's hit a secret may end, in characters. A long string
   * of a JSON line (a tool's output) is then given to `detect` only around the
   * hits: whole lines from a little before each to this far after. Omitted: all of it.
   */
  reach?: number;
  /**
   * A catch-all (an assignment or entropy rule): where another detector finds the
   * same secret, that one names it, whatever the order the plugins come in.
   */
  fallback?: boolean;
  /** The secrets in `text`. Throwing (or rejecting) reports the detector as failed; the others still run. */
  detect(text: string): readonly DetectedSecret[] | Promise<readonly DetectedSecret[]>;
  /** Frees what it holds (a worker thread); called when the redactor is done. */
  close?(): void | Promise<void>;
}

/** A problem redaction met and went on past (a team file refused, a detector failing), never thrown at capture. */
export interface RedactionProblem {
  code: string;
  message: string;
}

/** Why redaction runs: the layers a plugin adds may differ (the service has no repository, so no team rules). */
export type RedactionPurpose = 'capture' | 'push' | 'check' | 'store' | 'serve';

/** What a plugin's tap of `detectors` knows about where redaction runs. */
export interface RedactionScope {
  purpose: RedactionPurpose;
  /** `$TRACER_HOME`. */
  home: string;
  /** The repository's root folder, whose `.tracer/redact.json` holds the team's rules; none on the service. */
  root?: string;
  /** The project's folder under `$TRACER_HOME/projects/`, when there is one. */
  projectDir?: string;
  env: NodeJS.ProcessEnv;
  /** `tracer config set redact.pii true`: e-mail addresses and phone numbers are redacted too. */
  pii: boolean;
  /** Reports a problem and carries on (capture logs it in hook-errors.log, commands print it). */
  report(problem: RedactionProblem): void;
}

/** What the `detectors` hook collects into: each tap adds its detectors. */
export interface DetectorSet {
  add(...detectors: RedactionDetector[]): void;
}

/** Where a redactor's detectors come from: a kernel's plugins (hooks.ts), or the built-in layers alone (capture.ts). */
export type DetectorSource = (set: DetectorSet, scope: RedactionScope) => Promise<void>;
