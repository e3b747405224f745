// The git questions blame, show and stats ask besides blame itself, and the
// errors a user gets when the answer is "no such thing". Every call only reads.
import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { ExitCode, TracerError } from '../core/errors.js';
import { GitCommandError, runGit, type GitOptions } from '../capture/ledger/git-exec.js';
import { findGit, readHeadCommit } from '../store/git.js';

export type { GitOptions };

/** The full id of a commit, or undefined when `rev` names none. */
export async function commitId(rev: string, git: GitOptions): Promise<string | undefined> {
  if (rev.startsWith('-')) return undefined;
  if (rev === 'HEAD') {
    const location = findGit(git.cwd, git.env);
    const head = location && readHeadCommit(location);
    if (head !== undefined) return head;
  }
  try {
    const out = (await runGit(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], git)).trim();
    return out === '' ? undefined : out;
  } catch (error) {
    if (error instanceof GitCommandError) return undefined;
    throw error;
  }
}

/** Whether `commit` has a file at `path` (repository-relative). */
export async function pathInCommit(commit: string, path: string, git: GitOptions): Promise<boolean> {
  try {
    await runGit(['cat-file', '-e', `${commit}:${path}`], git);
    return true;
  } catch (error) {
    if (error instanceof GitCommandError) return false;
    throw error;
  }
}

export function unknownRevision(rev: string): TracerError {
  return new TracerError(
    'unknown_revision',
    `"${rev}" does not name a commit in this repository; pass a commit id, a branch, a tag or HEAD~n.`,
    {
      exitCode: ExitCode.usage,
    },
  );
}

/** `path` as the repository names it (relative to the top of the working tree, `/`-separated). */
export function repoPath(path: string, git: GitOptions): string {
  const location = findGit(git.cwd, git.env);
  if (!location) {
    throw new TracerError('not_a_git_repository', `${git.cwd} is not inside a git repository; cd into your repository and try again.`, {
      exitCode: ExitCode.localState,
    });
  }
  const top = realOrSame(location.worktree);
  const absolute = isAbsolute(path) ? path : resolve(realOrSame(git.cwd), path);
  const inside = relative(top, realOrSame(absolute));
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) throw pathNotTracked(path, undefined);
  return inside.split(sep).join('/');
}

export function pathNotTracked(path: string, rev: string | undefined): TracerError {
  const where = rev === undefined ? 'in this repository' : `at ${rev}`;
  return new TracerError(
    'path_not_tracked',
    `git does not track "${path}" ${where}; pass the path of a file that git tracks (git ls-files lists them).`,
    { exitCode: ExitCode.usage },
  );
}

function realOrSame(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    // A path that does not exist (yet) resolves as written; git decides whether it is tracked.
    return path;
  }
}

/**
 * The branch this one left: origin's HEAD when the clone knows it, else main or
 * master (local, then origin's). Undefined when there is none.
 */
export async function defaultBranch(git: GitOptions): Promise<string | undefined> {
  return (await defaultBranchTip(git))?.ref;
}

const CANDIDATES = ['refs/heads/main', 'refs/heads/master', 'refs/remotes/origin/main', 'refs/remotes/origin/master'];

/** The default branch (as defaultBranch finds it) and the commit at its tip, from one `git for-each-ref`. */
export async function defaultBranchTip(git: GitOptions): Promise<{ ref: string; commit: string } | undefined> {
  let out: string;
  try {
    out = await runGit(['for-each-ref', '--format=%(refname)%00%(symref)%00%(objectname)', 'refs/remotes/origin/HEAD', ...CANDIDATES], git);
  } catch (error) {
    if (error instanceof GitCommandError) return undefined;
    throw error;
  }
  const refs = new Map<string, { symref: string; commit: string }>();
  for (const line of out.split('\n')) {
    const [name, symref = '', commit = ''] = line.split('\u0000');
    if (name) refs.set(name, { symref, commit });
  }
  const head = refs.get('refs/remotes/origin/HEAD');
  if (head?.symref) {
    const target = refs.get(head.symref)?.commit ?? (await commitId(head.symref, git));
    if (target !== undefined) return { ref: head.symref, commit: target };
  }
  for (const candidate of CANDIDATES) {
    const found = refs.get(candidate);
    if (found?.commit) return { ref: candidate, commit: found.commit };
  }
  return undefined;
}

export function shortRef(ref: string): string {
  return ref.replace(/^refs\/(heads|remotes)\//, '');
}
