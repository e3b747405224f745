import { ExitCode, TracerError } from '../../core/errors.js';
import { parseAddedLines, type AddedLine, type AddedLines } from './diff-parse.js';
import { GitCommandError, runGit, type GitOptions } from './git-exec.js';

export interface CommitInfo {
  /** Full object name: 40 hex (SHA-1) or 64 hex (SHA-256 repositories). */
  commit: string;
  parents: string[];
  /** Committer time, ISO-8601 UTC: the same on every clone, unlike the time tracer ran. */
  ts: string;
  /** The message's subject (its first paragraph on one line) and the author's name, for the commit link: never in the ledger. */
  subject?: string;
  authorName?: string;
}

export async function readCommit(rev: string, git: GitOptions): Promise<CommitInfo> {
  let text: string;
  try {
    text = await runGit(['show', '-s', '--no-show-signature', '--format=%H%n%P%n%ct%n%an%n%s', `${rev}^{commit}`, '--'], git);
  } catch (error) {
    if (error instanceof GitCommandError) {
      throw new TracerError(
        'unknown_commit',
        `"${rev}" does not name a commit in this repository; pass --commit with a commit id, branch or HEAD~n.`,
        {
          exitCode: ExitCode.usage,
          cause: error,
        },
      );
    }
    throw error;
  }
  const [commit = '', parents = '', seconds = '', authorName = '', subject = ''] = text.split('\n');
  if (!/^([0-9a-f]{40}|[0-9a-f]{64})$/.test(commit) || !/^\d+$/.test(seconds)) {
    throw new TracerError(
      'git_failed',
      `git gave an unexpected answer for commit "${rev}"; check the repository with git fsck and run the command again.`,
      { exitCode: ExitCode.localState },
    );
  }
  return { commit, parents: parents.split(' ').filter(Boolean), ts: new Date(Number(seconds) * 1000).toISOString(), subject, authorName };
}

/**
 * Plumbing, so the user's diff settings (algorithm, prefixes, colour, external
 * tools, textconv) cannot change what is read: every clone reads the same lines.
 * Renames are detected with git's default similarity and an explicit limit (no
 * diff.renameLimit), so a renamed or moved file adds only the lines that
 * changed, not the whole file again under its new name.
 */
export const DIFF_ARGS = [
  '-c',
  'core.quotePath=true',
  'diff-tree',
  '-p',
  '--no-color',
  '--find-renames=50%',
  '-l1000',
  '--no-ext-diff',
  '--no-textconv',
  '--ignore-submodules=all',
  '--unified=0',
  '--src-prefix=a/',
  '--dst-prefix=b/',
];

export interface CommitChanges {
  /** Lines the commit added relative to its first parent (or to nothing, for a root commit). */
  added: AddedLines;
  /**
   * For a merge: per path, the added line numbers that one of the other parents
   * already had. Those lines were written on the merged branch, not in the merge.
   */
  carried: Map<string, Set<number>>;
}

export async function readChanges(info: CommitInfo, git: GitOptions): Promise<CommitChanges> {
  const [first, ...others] = info.parents;
  const added = parseAddedLines(
    await runGit(first === undefined ? [...DIFF_ARGS, '--root', info.commit] : [...DIFF_ARGS, first, info.commit], git),
  );
  const carried = new Map<string, Set<number>>();
  for (const other of others) {
    const newAgainstOther = parseAddedLines(await runGit([...DIFF_ARGS, other, info.commit], git));
    for (const [path, lines] of added) {
      const fresh = new Set((newAgainstOther.get(path) ?? []).map((line) => line.line));
      const fromOther = lines.filter((line) => !fresh.has(line.line)).map((line) => line.line);
      if (fromOther.length === 0) continue;
      const set = carried.get(path) ?? new Set<number>();
      for (const line of fromOther) set.add(line);
      carried.set(path, set);
    }
  }
  return { added, carried };
}

export type { AddedLine, AddedLines };

export interface CommitsRead {
  commits: Map<string, { info: CommitInfo; changes?: CommitChanges }>;
  /** diff-tree's whole output, as `git patch-id` reads it. */
  diff: string;
}

/**
 * readCommit and readChanges for many non-merge commits in two git calls (one
 * log, one diff-tree --stdin): reconcile reads dozens of commits at once. The
 * diff is the same plumbing with the same options; each commit's part starts
 * with its id alone on a line, which no diff line can be (they start with a
 * marker, a space or a header word).
 */
export async function readCommitsBatch(
  commits: readonly string[],
  git: GitOptions,
  /** Commits already read (commit-objects.ts): no log for them. */
  known: ReadonlyMap<string, { info: CommitInfo }> = new Map(),
): Promise<CommitsRead> {
  const found = new Map<string, { info: CommitInfo; changes?: CommitChanges }>();
  const unknown = commits.filter((commit) => {
    const info = known.get(commit)?.info;
    if (info) found.set(commit, { info });
    return info === undefined;
  });
  const log =
    unknown.length === 0
      ? ''
      : await runGit(['log', '--no-walk=unsorted', '--no-show-signature', '--format=%H%x00%P%x00%ct%x00%an%x00%s', ...unknown, '--'], git);
  for (const line of log.split('\n')) {
    // NUL between the fields: a subject or a name may hold a tab, never a NUL or a newline.
    const [commit = '', parents = '', seconds = '', authorName = '', subject = ''] = line.split('\0');
    if (!/^([0-9a-f]{40}|[0-9a-f]{64})$/.test(commit) || !/^\d+$/.test(seconds)) continue;
    found.set(commit, {
      info: {
        commit,
        parents: parents.split(' ').filter(Boolean),
        ts: new Date(Number(seconds) * 1000).toISOString(),
        subject,
        authorName,
      },
    });
  }
  const plain = [...found.values()].filter(({ info }) => info.parents.length <= 1).map(({ info }) => info.commit);
  if (plain.length === 0) return { commits: found, diff: '' };
  const diff = await runGit([...DIFF_ARGS, '--stdin', '--root'], { ...git, input: `${plain.join('\n')}\n` });
  const parts = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of diff.split('\n')) {
    if (/^([0-9a-f]{40}|[0-9a-f]{64})$/.test(line) && found.has(line)) {
      current = [];
      parts.set(line, current);
    } else current?.push(line);
  }
  for (const commit of plain) {
    found.get(commit)!.changes = { added: parseAddedLines((parts.get(commit) ?? []).join('\n')), carried: new Map() };
  }
  return { commits: found, diff };
}
