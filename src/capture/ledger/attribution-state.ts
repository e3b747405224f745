// attribution-state.json (spec §2.2, "attribution-window cursor"): the last
// commit seen and, for recent commits, which trace lines each one claimed.
//
// Claims make "never attribute a trace's line twice in one branch history"
// checkable: a commit may not use a line that one of its ancestors already
// claimed, while a commit on another branch, or the new commit of an amend or
// rebase (whose old commit is no ancestor of it), may.
import { join } from 'node:path';
import { ExitCode, TracerError } from '../../core/errors.js';
import { takeLock } from '../../store/file-lock.js';
import { PRIVATE_DIR_MODE, PROJECT_STATE_FILES } from '../../store/home.js';
import { ensureDir, unwritable } from '../../files/index.js';
import { isPlainObject, readStateFile, updateStateFile } from '../../store/state-file.js';

export interface AttributionState {
  /** The commit attributed last, and its committer time (the spec's cursor). */
  last_commit?: string;
  last_commit_ts?: string;
  /**
   * Traces recorded up to this instant are outside every window: the claims that
   * guarded them were dropped to keep this file small (see MAX_REMEMBERED_COMMITS).
   */
  window_start?: string;
  commits: Record<string, CommitClaims>;
}

export interface CommitClaims {
  /** Committer time, ISO-8601 UTC. */
  ts: string;
  ledger_sha: string;
  /** trace id → repo-relative path → line hash → how many of that trace's lines were used. */
  claims: Record<string, Record<string, Record<string, number>>>;
}

/** Enough for months of commits; older claims only matter to commits built on very old history. */
export const MAX_REMEMBERED_COMMITS = 2000;

const options = {
  empty: (): AttributionState => ({ commits: {} }),
  isValid: (value: unknown): value is AttributionState => isPlainObject(value) && isPlainObject(value.commits),
};

export function attributionStatePath(projectDir: string): string {
  return join(projectDir, PROJECT_STATE_FILES.attributionState);
}

export function readAttributionState(projectDir: string): Promise<AttributionState> {
  return readStateFile(attributionStatePath(projectDir), options);
}

export interface RecordedCommit extends CommitClaims {
  commit: string;
  /** The commit this one replaced (amend, rebase): its claims are released. */
  replaces?: string;
}

export function recordCommit(projectDir: string, recorded: RecordedCommit): Promise<AttributionState> {
  return recordCommits(projectDir, [recorded]);
}

/** How long a commit waits for another writer of the file (each holds it for one read and write). */
const LOCK_WAIT_MS = 10_000;
export const ATTRIBUTION_STATE_LOCK = 'attribution-state.lock';

/**
 * Several commits in one read and write of the file, in order (reconcile
 * records a rebased branch at once). Under a lock: the post-commit hook and a
 * reconcile in the background (or two commits in two worktrees) each read the
 * file, add their commits and write it back, and without the lock the second
 * write would drop the first one's commits.
 */
export async function recordCommits(projectDir: string, commits: readonly RecordedCommit[]): Promise<AttributionState> {
  const lockPath = join(projectDir, ATTRIBUTION_STATE_LOCK);
  try {
    await ensureDir(projectDir, PRIVATE_DIR_MODE);
  } catch (error) {
    throw unwritable(attributionStatePath(projectDir), error);
  }
  const release = await takeLock(lockPath, { waitMs: LOCK_WAIT_MS, purpose: 'recording commits in attribution-state.json' });
  if (!release) {
    throw new TracerError(
      'state_file_busy',
      `${lockPath} has been held by another live tracer process for ${LOCK_WAIT_MS / 1000} s; let it finish (or stop it) and run the command again.`,
      { exitCode: ExitCode.localState },
    );
  }
  try {
    return await updateStateFile(attributionStatePath(projectDir), options, (state) => record(state, commits));
  } finally {
    await release().catch(() => undefined);
  }
}

function record(state: AttributionState, commits: readonly RecordedCommit[]): void {
  for (const recorded of commits) {
    if (recorded.replaces !== undefined && recorded.replaces !== recorded.commit) delete state.commits[recorded.replaces];
    state.commits[recorded.commit] = { ts: recorded.ts, ledger_sha: recorded.ledger_sha, claims: recorded.claims };
    if (state.last_commit_ts === undefined || recorded.ts >= state.last_commit_ts) {
      state.last_commit = recorded.commit;
      state.last_commit_ts = recorded.ts;
    }
  }
  forgetOldest(state);
}

/** Drops the oldest commits past the limit and moves the window past the traces they guarded. */
function forgetOldest(state: AttributionState): void {
  const byAge = Object.entries(state.commits).sort(([a, x], [b, y]) => (x.ts === y.ts ? (a < b ? -1 : 1) : x.ts < y.ts ? -1 : 1));
  const excess = byAge.length - MAX_REMEMBERED_COMMITS;
  if (excess <= 0) return;
  for (const [commit] of byAge.slice(0, excess)) delete state.commits[commit];
  const newestForgotten = byAge[excess - 1]![1].ts;
  if (state.window_start === undefined || newestForgotten > state.window_start) state.window_start = newestForgotten;
}
