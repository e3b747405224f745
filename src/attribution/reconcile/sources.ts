// Where a commit that has no ledger came from. Three kinds of evidence, each
// read from git alone, so every clone finds the same sources:
// - the same change: `git patch-id --stable` of the commit's diff equals that of
//   a commit with a ledger (a rebase, a cherry-pick, the hosting service's
//   "rebase and merge");
// - the pull request it closes: the subject's `(#N)` or `Merge pull request #N`,
//   GitLab's `See merge request …!N`, whose head the hosting service keeps as
//   `refs/pull/N/head` or `refs/merge-requests/N/head` (fetched when missing);
// - a branch whose combined change is the commit's (a squash whose pull-request
//   ref cannot be had).
import { DIFF_ARGS } from '../../capture/ledger/commit-diff.js';
import { GitCommandError, runGit, type GitOptions } from '../../capture/ledger/git-exec.js';

/** patch-id of each commit's diff against its first parent, in one diff-tree and one patch-id run; merges and empty commits have none. */
export async function patchIds(commits: readonly string[], git: GitOptions): Promise<Map<string, string>> {
  if (commits.length === 0) return new Map();
  return patchIdsOf(await runGit([...DIFF_ARGS, '--stdin', '--root'], { ...git, input: `${commits.join('\n')}\n` }), git);
}

/** The patch-ids of the commits in `diff-tree -p --stdin` output (DIFF_ARGS) already read. */
export async function patchIdsOf(diff: string, git: GitOptions): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  if (diff.trim() === '') return found;
  const ids = await runGit(['patch-id', '--stable'], { ...git, input: diff });
  for (const line of ids.split('\n')) {
    const [patch, commit] = line.split(' ');
    if (patch && commit) found.set(commit, patch);
  }
  return found;
}

/** The patch-id of a combined change, `from`..`to` (a whole branch). */
export async function rangePatchId(from: string, to: string, git: GitOptions): Promise<string | undefined> {
  const diff = await runGit([...DIFF_ARGS, from, to], git);
  if (diff.trim() === '') return undefined;
  return (await runGit(['patch-id', '--stable'], { ...git, input: diff })).split(' ')[0] || undefined;
}

export interface PullRequest {
  host: 'github' | 'gitlab';
  number: number;
}

/** The pull or merge request a hosting service's merge button names in the message. */
export function pullRequestOf(message: string): PullRequest | undefined {
  const subject = message.split('\n', 1)[0] ?? '';
  const github = /\(#(\d+)\)\s*$/.exec(subject) ?? /^Merge pull request #(\d+) /.exec(subject);
  if (github) return { host: 'github', number: Number(github[1]) };
  const gitlab = /^See merge request \S*!(\d+)\s*$/m.exec(message);
  if (gitlab) return { host: 'gitlab', number: Number(gitlab[1]) };
  return undefined;
}

/** Where a clone may already hold the request's head, tracer's own fetched copy last. */
export function headRefs(request: PullRequest): { remote: string; local: string[] } {
  const n = request.number;
  if (request.host === 'github') {
    return {
      remote: `refs/pull/${n}/head`,
      local: [`refs/pull/${n}/head`, `refs/remotes/origin/pull/${n}/head`, `refs/remotes/origin/pr/${n}`, `refs/tracer/pull/${n}`],
    };
  }
  return {
    remote: `refs/merge-requests/${n}/head`,
    local: [`refs/merge-requests/${n}/head`, `refs/remotes/origin/merge-requests/${n}/head`, `refs/tracer/merge-requests/${n}`],
  };
}

export interface FetchPolicy {
  /** Allowed to ask the remote for a missing head. */
  fetch: boolean;
  timeoutMs: number;
  /** Called once per head ref the remote did not give. */
  onFetchFailed?: (ref: string) => void;
  /** Heads known to be missing on the remote: not asked again. */
  skip?: ReadonlySet<string>;
  /** Called when the head is not here and `fetch` is false, yet the remote was never asked for it. */
  onFetchWanted?: (ref: string) => void;
}

/** The head commit of the pull request: a local ref, else fetched quietly into refs/tracer/… with a short time-out. */
export async function pullRequestHead(request: PullRequest, git: GitOptions, policy: FetchPolicy): Promise<string | undefined> {
  const refs = headRefs(request);
  for (const ref of refs.local) {
    const id = await resolve(ref, git);
    if (id !== undefined) return id;
  }
  if (policy.skip?.has(refs.remote)) return undefined;
  if (!policy.fetch) {
    policy.onFetchWanted?.(refs.remote);
    return undefined;
  }
  const remote = await defaultRemote(git);
  if (remote === undefined) return undefined;
  const target = refs.local.at(-1)!;
  try {
    await runGit(
      ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--no-recurse-submodules', remote, `+${refs.remote}:${target}`],
      {
        cwd: git.cwd,
        // Never a password prompt, whatever the remote's transport: a hook has no one to answer it.
        env: { ...git.env, GIT_TERMINAL_PROMPT: '0', GIT_SSH_COMMAND: git.env.GIT_SSH_COMMAND ?? 'ssh -o BatchMode=yes' },
        timeoutMs: policy.timeoutMs,
      },
    );
  } catch (error) {
    if (!(error instanceof GitCommandError)) throw error;
    policy.onFetchFailed?.(refs.remote);
    return undefined;
  }
  return resolve(target, git);
}

/** The commits of the request: reachable from its head, not from the commit the merge landed on. */
export async function requestCommits(head: string, landedOn: string, git: GitOptions): Promise<string[]> {
  const out = await runGit(['rev-list', head, '--not', landedOn, '--'], git);
  return out.split('\n').filter(Boolean);
}

async function resolve(ref: string, git: GitOptions): Promise<string | undefined> {
  try {
    const out = (await runGit(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], git)).trim();
    return out === '' ? undefined : out;
  } catch (error) {
    if (error instanceof GitCommandError) return undefined;
    throw error;
  }
}

/** `origin` when there is one, else the only remote; undefined when there is none or the choice is unclear. */
async function defaultRemote(git: GitOptions): Promise<string | undefined> {
  const remotes = (await runGit(['remote'], git)).split('\n').filter(Boolean);
  if (remotes.includes('origin')) return 'origin';
  return remotes.length === 1 ? remotes[0] : undefined;
}

/**
 * Branch tips that could be the squashed branch: commits with a ledger that
 * `landedOn` does not contain and that no other such commit builds on.
 */
export async function unmergedTips(ledgered: readonly string[], landedOn: string, git: GitOptions): Promise<string[]> {
  if (ledgered.length === 0) return [];
  const out = await runGit(['rev-list', '--parents', '--stdin'], { ...git, input: `${ledgered.join('\n')}\n^${landedOn}\n` });
  const wanted = new Set(ledgered);
  const traversed = new Set<string>();
  const parents = new Set<string>();
  for (const line of out.split('\n')) {
    const [commit, ...rest] = line.split(' ');
    if (!commit) continue;
    traversed.add(commit);
    for (const parent of rest) parents.add(parent);
  }
  return [...traversed].filter((commit) => wanted.has(commit) && !parents.has(commit)).sort();
}

/** A commit's full message and first parent. */
export async function commitMessage(commit: string, git: GitOptions): Promise<string> {
  return runGit(['show', '-s', '--no-show-signature', '--format=%B', commit, '--'], git);
}
