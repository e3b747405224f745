// A commit's subject is a person's text: a token pasted into `git commit -m` is
// as secret as one pasted into a prompt, and tracer's own store must never hold
// it (issue 29). So a commit link stores the subject as capture's redactor for
// the project leaves it (the team's rules, the store's placeholders: the same
// secret reads as the same placeholder as in the transcripts), and carries the
// mark that says so, which a push trusts and sends as it is.
//
// Cheap on purpose: the redactor is loaded only once a subject is to be written.
// A redaction problem never costs the link: it is reported with its code, and
// when no redactor can be had at all the link is written without its subject,
// as links written before subjects were kept are (readers ask git for it then).
import { logHookFailure } from '../hook/error-log.js';
import type { TextRedaction } from '../../redact/capture.js';
import type { RedactionProblem } from '../../redact/types.js';
import type { GitOptions } from './git-exec.js';

/** The subject as a commit link stores it, and the members that say it was redacted. */
export interface KeptSubject {
  /** Absent when the commit has none, or it could not be redacted. */
  subject?: string;
  /** `redacted: true`, only beside a subject (nothing else of a link is a person's text). */
  mark?: Record<string, unknown>;
}

/** A commit's subject as a link may keep it. */
export type SubjectRedaction = (subject: string | undefined) => Promise<KeptSubject>;

export type ProblemSink = (problem: RedactionProblem) => void;

/** One per run (a commit, a rewrite, a reconcile): the redactor is loaded by the first subject, and only then. */
export function subjectRedaction(projectDir: string, git: GitOptions, onProblem: ProblemSink): SubjectRedaction {
  let loading: Promise<TextRedaction | undefined> | undefined;
  return async (subject) => {
    if (subject === undefined) return {};
    const redaction = await (loading ??= load(projectDir, git, onProblem));
    if (!redaction) return {};
    try {
      return { subject: await redaction.text(subject), mark: redaction.mark };
    } catch (error) {
      onProblem(unavailable(error));
      return {};
    }
  };
}

/** Problems written to the project's hook-errors.log, as the hooks' own failures are. */
export function loggedProblems(projectDir: string, event: string): ProblemSink {
  return (problem) => logHookFailure(projectDir, { agent: 'git', event }, problem);
}

async function load(projectDir: string, git: GitOptions, onProblem: ProblemSink): Promise<TextRedaction | undefined> {
  try {
    const [{ captureTextRedaction }, { findGit }, { tracerHome }] = await Promise.all([
      import('../../redact/capture.js'),
      import('../../store/git.js'),
      import('../../store/home.js'),
    ]);
    // The repository's root holds the team's rules (.tracer/redact.json).
    const root = findGit(git.cwd, git.env)?.worktree;
    return await captureTextRedaction({ home: tracerHome(git.env), projectDir, root, env: git.env }, onProblem);
  } catch (error) {
    onProblem(unavailable(error));
    return undefined;
  }
}

function unavailable(error: unknown): RedactionProblem {
  const why = (error instanceof Error ? error.message : String(error)).replace(/\.$/, '');
  return {
    code: 'redaction_unavailable',
    message: `Redaction could not run (${why}), so the commit link was written without its subject; the next commit tries again.`,
  };
}
