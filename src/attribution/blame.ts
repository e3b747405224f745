// Who wrote each line of a file: `git blame --porcelain` names the commit that
// introduced the line and where the line stood in that commit; that commit's
// ledger says whose the line is there. This module is the whole mapping, for
// the command line and for anything else that shows attribution.
import { ExitCode, TracerError } from '../core/errors.js';
import { runBlame, UNCOMMITTED, type BlameOutcome, type BlamedLine } from './blame-porcelain.js';
import { commitId, pathInCommit, pathNotTracked, repoPath, unknownRevision, type GitOptions } from './git-read.js';
import { LedgerLines } from './ledger-lines.js';
import { lineContributor, lineRecovered, type LedgerView } from './ledger-view.js';
import type { LockHolder } from '../store/file-lock.js';

/**
 * Whose a blamed line is:
 * - `ai`, `human`, `mixed`: what the ledger's range covering the line says; a
 *   line the ledger covers with no range is a person's (the ledger writer
 *   records every line an agent wrote, and a blank line is nobody's work).
 * - `unknown`: the commit has no ledger (made before tracer, or elsewhere).
 * - `uncommitted`: the working tree's line is in no commit yet.
 */
export type BlameType = 'ai' | 'human' | 'mixed' | 'unknown' | 'uncommitted';

export interface AttributedBlameLine {
  line: number;
  commit: string | null;
  type: BlameType;
  agent: string | null;
  model_id: string | null;
  conversation_url: string | null;
  /** Present, true, when reconcile re-attached the line by content hash (its branch commits were gone). */
  recovered?: true;
  content: string;
}

export interface BlameReport {
  path: string;
  /** The commit blamed; for the working tree, HEAD's (null before the first commit). */
  rev: string | null;
  working_tree: boolean;
  lines: AttributedBlameLine[];
}

/** What the text output shows besides the JSON members. */
export interface BlameDetails {
  author: string;
  authorTime: number;
  origPath: string;
}

export interface BlameQuery {
  projectDir: string;
  git: GitOptions;
  path: string;
  rev?: string;
  lines?: { start: number; end: number };
  /** Passed to git blame: `-w`, `-M`, `-C`. */
  options?: readonly string[];
  /** Told once a wait for the background reconcile lasts. */
  onWait?: (holder: LockHolder) => void;
}

export async function blameFile(query: BlameQuery): Promise<{ report: BlameReport; details: BlameDetails[] }> {
  const path = repoPath(query.path, query.git);
  // git, the revision check and the ledger index run side by side: the index is read while git works.
  const [outcome, rev, ledgers] = await Promise.all([
    runBlame({ ...query.git, path: query.path, rev: query.rev, lines: query.lines, options: query.options }),
    commitId(query.rev ?? 'HEAD', query.git),
    LedgerLines.read(query.projectDir),
  ]);
  if (outcome.failure) throw await blameFailure(outcome, query, rev);
  if (outcome.binary) {
    throw new TracerError('binary_file', `"${query.path}" is a binary file; tracer blame reads text files only.`, {
      exitCode: ExitCode.usage,
    });
  }
  const noneCommitted = outcome.lines.length > 0 && outcome.lines.every((line) => UNCOMMITTED.test(line.commit));
  // A file whose every line changed since HEAD still has a history; one that HEAD lacks has none.
  if (noneCommitted && (rev === undefined || !(await pathInCommit(rev, path, query.git)))) {
    throw new TracerError('no_history', `"${query.path}" is in no commit yet; commit it first, then blame it.`, {
      exitCode: ExitCode.usage,
    });
  }
  const commits = new Set(outcome.lines.map((line) => line.commit));
  let found = ledgers.ledgersOf(commits);
  const missing = [...commits].filter((commit) => !UNCOMMITTED.test(commit) && !found.has(commit));
  if (missing.length > 0) {
    const { reconcileOnRead } = await import('./reconcile/on-read.js');
    if (await reconcileOnRead(query.projectDir, query.git, missing, { index: ledgers, ...(query.onWait ? { onWait: query.onWait } : {}) }))
      found = (await LedgerLines.read(query.projectDir)).ledgersOf(commits);
  }
  return {
    report: {
      path,
      rev: rev ?? null,
      working_tree: query.rev === undefined,
      lines: outcome.lines.map((line) => attributeLine(line, found)),
    },
    details: outcome.lines.map((line) => ({ author: line.author, authorTime: line.authorTime, origPath: line.origPath })),
  };
}

export function attributeLine(blamed: BlamedLine, ledgers: ReadonlyMap<string, LedgerView>): AttributedBlameLine {
  const { line, content } = blamed;
  if (UNCOMMITTED.test(blamed.commit)) return { line, commit: null, type: 'uncommitted', ...NOBODY, content };
  const ledger = ledgers.get(blamed.commit);
  if (!ledger) return { line, commit: blamed.commit, type: 'unknown', ...NOBODY, content };
  const who = lineContributor(ledger, blamed.origPath, blamed.origLine);
  const recovered = lineRecovered(ledger, blamed.origPath, blamed.origLine) ? { recovered: true as const } : {};
  return {
    line,
    commit: blamed.commit,
    type: who.type,
    agent: who.agent,
    model_id: who.model_id,
    conversation_url: who.url,
    ...recovered,
    content,
  };
}

const NOBODY = { agent: null, model_id: null, conversation_url: null };

/** line_out_of_range: lines asked for past the file's end; it keeps how many lines the file has. */
export class LineOutOfRangeError extends TracerError {
  constructor(
    path: string,
    readonly lines: number,
    /** What to do, after the semicolon: blame's option, why's range. */
    advice: string,
  ) {
    super('line_out_of_range', `"${path}" has only ${lines} line${lines === 1 ? '' : 's'}; ${advice}.`, { exitCode: ExitCode.usage });
  }
}

/** How many lines the file has, when `error` is a line_out_of_range refusal; undefined otherwise. */
export function linesInFile(error: unknown): number | undefined {
  return error instanceof LineOutOfRangeError ? error.lines : undefined;
}

/** git's refusal, told as one of tracer's codes; the checks run only once git has failed. */
async function blameFailure(outcome: BlameOutcome, query: BlameQuery, rev: string | undefined): Promise<TracerError> {
  const stderr = outcome.failure!.stderr;
  if (query.rev !== undefined && rev === undefined) return unknownRevision(query.rev);
  const range = /has only (\d+) lines?/.exec(stderr);
  if (range) return new LineOutOfRangeError(query.path, Number(range[1]), 'pass --line with numbers inside the file');
  if (rev === undefined && /no such ref|bad revision 'HEAD'|does not have any commits/i.test(stderr)) {
    return new TracerError('no_history', 'This repository has no commit yet; commit something first, then blame it.', {
      exitCode: ExitCode.usage,
    });
  }
  if (/no such path|cannot stat path|outside repository|no such file/i.test(stderr)) return pathNotTracked(query.path, query.rev);
  const first = stderr.split('\n').find((line) => line.trim() !== '') ?? `git exited ${outcome.failure!.code}`;
  return new TracerError(
    'git_failed',
    `git blame failed: ${first.replace(/^fatal: /, '').replace(/\.$/, '')}; check the path and revision with git blame.`,
    {
      exitCode: ExitCode.localState,
    },
  );
}
