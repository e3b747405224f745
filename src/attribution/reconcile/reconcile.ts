// Reconcile: a commit on the current branch that has no ledger (a squash, a
// rebase or a cherry-pick made by the hosting service's merge button) gets one
// from the ledgers of the commits it came from, written like any other ledger
// (ledgers.jsonl, the git note, a commit link). Everything it reads is git's
// and the ledgers', never the clock or the machine, so two machines reconciling
// the same commit write the same bytes and the service keeps one row.
//
// Evidence, strongest first (sources.ts): the same patch; the pull request the
// message names; a branch whose combined change is the commit's. Lines are then
// mapped exactly (lines.ts). A commit with no source stays as it is.
import { join } from 'node:path';
import {
  readChanges,
  readCommit,
  readCommitsBatch,
  type AddedLines,
  type CommitChanges,
  type CommitInfo,
} from '../../capture/ledger/commit-diff.js';
import { GitCommandError, runGit, type GitOptions } from '../../capture/ledger/git-exec.js';
import { buildRecordLedger, commitLinkRecord, COMMIT_LINKS_FILE, LEDGERS_FILE, type Ledger } from '../../capture/ledger/ledger-record.js';
import { appendOnce } from '../../capture/ledger/link-commit.js';
import { loggedProblems, subjectRedaction, type ProblemSink, type SubjectRedaction } from '../../capture/ledger/link-subject.js';
import { readCommitObjects, type CommitObject } from '../../capture/ledger/commit-objects.js';
import { NOTES_FULL_REF, writeLedgerNote, writeLedgerNotes } from '../../capture/ledger/notes.js';
import { isAttributableLine } from '../../capture/trace-record.js';
import { ExitCode, TracerError } from '../../core/errors.js';
import { appendRecord } from '../../store/jsonl.js';
import { LedgerLines } from '../ledger-lines.js';
import { readLedgerLine, type LedgerView } from '../ledger-view.js';
import { readReconcileCache, writeReconcileCache, type ReconcileCache } from './cache.js';
import { recordReconciledClaims, type ReconciledLedger } from './claims.js';
import { lockReconcile, RECONCILE_LOCK } from './lock.js';
import { mapByPatch, mapThroughBlame, type MappedLines } from './lines.js';
import { recoverByContent } from './recover.js';
import {
  patchIds,
  patchIdsOf,
  pullRequestHead,
  pullRequestOf,
  rangePatchId,
  requestCommits,
  unmergedTips,
  type FetchPolicy,
} from './sources.js';
import type { LockHolder } from '../../store/file-lock.js';

export type ReconcileMethod = 'patch-id' | 'pull-request' | 'branch' | 'content-hash';

export interface ReconciledCommit {
  commit: string;
  method: ReconcileMethod;
  /** Branch commits whose ledgers the lines came from. */
  sources: string[];
  /** Branch commits some lines came from that have no ledger (yet): those lines are `unknown`. */
  without_ledger: string[];
  lines: { ai: number; human: number; mixed: number; unknown: number };
  ledger_sha: string;
  /** False on a dry run, or when the same ledger was already recorded. */
  written: boolean;
}

export interface ReconcileReport {
  dry_run: boolean;
  /** Commits of the range (merges aside) that had no ledger, or a reconciled one missing some source's ledger. */
  examined: number;
  reconciled: ReconciledCommit[];
  /** Examined commits for which no source was found: they stay as they are. */
  without_source: string[];
  /** A bounded run only: the commits it left for a run without bounds (they need a fetch, or there were too many). */
  deferred?: string[];
}

export interface ReconcileRequest {
  projectDir: string;
  git: GitOptions;
  /** `git rev-list` arguments: a range such as `ORIG_HEAD..HEAD`, or commits (with `walk: false`). */
  revisions: readonly string[];
  /** False: the revisions are the commits themselves, not their history. */
  walk?: boolean;
  /** ledgers.jsonl already read by the caller. */
  index?: LedgerLines;
  /** Newest commits of the range looked at, at most. */
  limit?: number;
  dryRun?: boolean;
  /**
   * `quick` (blame, show, stats): the same patch and pull-request heads already
   * here. `full` (hooks, pull, the command): also fetches a missing head and
   * looks for a branch with the same combined change.
   */
  depth: 'quick' | 'full';
  /** Ask the remote again for heads it did not have, and look again at commits that had no source. */
  retry?: boolean;
  fetchTimeoutMs?: number;
  /**
   * The post-merge hook's bounds (git pull waits for it): no fetch, at most
   * `maxCommits` commits, no waiting for another reconcile. What it leaves is
   * in `report.deferred`, in order, for a run without bounds.
   */
  bounded?: { maxCommits: number };
  /** How long to wait for a reconcile running in this project (a hook's run in the background) to finish; default 60 s. */
  waitMs?: number;
  /** Told once the wait for that run lasts (about a second), to say so. */
  onWait?: (holder: LockHolder) => void;
  /** Redaction problems met on the commits' subjects; default: the project's hook-errors.log. */
  onProblem?: ProblemSink;
}

export const DEFAULT_LIMIT = 200;
const DEFAULT_WAIT_MS = 60_000;
const DEFAULT_FETCH_TIMEOUT_MS = 5000;
/** Branch tips compared with a commit's combined change, newest first: enough for the branches of a few weeks. */
const MAX_TIPS = 20;
/** How far back a gone branch's ledgers are compared by content: a long-lived pull request's life. */
const RECOVERY_DAYS = 90;

export async function reconcile(request: ReconcileRequest): Promise<ReconcileReport> {
  const { projectDir } = request;
  const report: ReconcileReport = {
    dry_run: request.dryRun === true,
    examined: 0,
    reconciled: [],
    without_source: [],
    ...(request.bounded ? { deferred: [] } : {}),
  };
  // Both at once: git lists the commits while the ledgers are read.
  const [targets, seen] = await Promise.all([listTargets(request), request.index ?? LedgerLines.read(projectDir)]);
  if (targets.length === 0) return report;
  // Most reads find every commit ledgered: they answer from the caller's index and never take the lock.
  if (pendingOf(targets, seen).length === 0) return report;
  const release = await lockReconcile(projectDir, request.bounded ? 0 : (request.waitMs ?? DEFAULT_WAIT_MS), request.onWait);
  if (!release) {
    if (request.bounded) {
      report.deferred = pendingOf(targets, await LedgerLines.read(projectDir));
      return report;
    }
    throw new TracerError(
      'reconcile_busy',
      `Another reconcile of this project (${join(projectDir, RECONCILE_LOCK)}) is still running after ${Math.round((request.waitMs ?? DEFAULT_WAIT_MS) / 1000)} s; run this again once it is done.`,
      { exitCode: ExitCode.localState },
    );
  }
  try {
    // Read again under the lock: the holder before may have written the very ledgers this run was about to.
    return await reconcileLocked(request, report, targets, await LedgerLines.readAgain(projectDir, seen));
  } finally {
    await release().catch(() => undefined);
  }
}

/** The targets without a ledger, and those whose reconciled ledger missed a source that has one now. */
function pendingOf(targets: readonly string[], index: LedgerLines): string[] {
  return targets.filter((commit) => {
    if (!index.has(commit)) return true;
    const view = index.ledgersOf([commit]).get(commit);
    // A reconciled ledger is redone once a source that had no ledger has one.
    return view?.reconciled !== undefined && view.reconciled.without_ledger.some((source) => index.has(source));
  });
}

async function reconcileLocked(
  request: ReconcileRequest,
  report: ReconcileReport,
  targets: readonly string[],
  index: LedgerLines,
): Promise<ReconcileReport> {
  const { git, projectDir } = request;
  const views = new Map<string, LedgerView | undefined>();
  const ledgerOf = (commit: string): LedgerView | undefined => {
    if (!views.has(commit)) views.set(commit, index.ledgersOf([commit]).get(commit));
    return views.get(commit);
  };
  const examined = pendingOf(targets, index);
  report.examined = examined.length;
  // Oldest first: a commit left for later never stands before one done now that it could be the source of.
  const pending = request.bounded ? examined.slice(0, request.bounded.maxCommits) : examined;
  report.deferred?.push(...examined.slice(pending.length));
  if (pending.length === 0) return report;

  const cache = await readReconcileCache(projectDir);
  const cacheBefore = JSON.stringify(cache);
  const ledgerCount = index.commits().length;
  const pendingSet = new Set(pending);
  const ledgered = index.commits().filter((commit) => !pendingSet.has(commit));
  // One git call for what every step below asks of the commits: which ledgered ones this
  // clone has, and their authors, messages, parents and times; and the notes' tip.
  const notesTip = `${NOTES_FULL_REF}^{commit}`;
  const headers = await readCommitObjects([...new Set([...pending, ...ledgered]), notesTip], git);
  const present = new Set(ledgered.filter((commit) => headers.has(commit)));
  // A rebase and a cherry-pick keep the author (name, email, time): only the ledgered
  // commits sharing a pending commit's author can be its source, so only those are diffed.
  const here = [...present];
  const peerAuthors = new Set(here.map((commit) => headers.get(commit)?.author));
  const withPeer = pending.filter((commit) => peerAuthors.has(headers.get(commit)?.author));
  const authors = new Set(withPeer.map((commit) => headers.get(commit)?.author));
  const peers = here.filter((commit) => authors.has(headers.get(commit)?.author));
  // A hook, pull or the command reads every pending commit, and the candidates for their
  // source, in one diff-tree up front; its output also gives the patch-ids not known yet.
  const ahead = request.depth === 'full' ? await readCommitsBatch([...new Set([...pending, ...peers])], git, headers) : undefined;
  await fillPatchIds(cache, [...withPeer, ...peers], git, ahead?.diff);
  const byPatch = new Map<string, string[]>();
  for (const commit of peers) {
    const patch = cache.patch_ids[commit];
    if (patch) byPatch.set(patch, [...(byPatch.get(patch) ?? []), commit]);
  }
  const context: SourceContext = {
    request,
    cache,
    ledgerOf,
    byPatch,
    ledgered,
    headers,
    present,
  };

  // The commits that have a source in sight, and those sources, read in two git calls rather than four each.
  const inSight = pending.filter(
    (commit) => request.depth === 'full' || samePatch(commit, context) !== undefined || pullRequestOf(headers.get(commit)?.message ?? ''),
  );
  const sources = inSight.map((commit) => samePatch(commit, context)).filter((source): source is string => source !== undefined);
  const read = ahead?.commits ?? (await readCommitsBatch([...new Set([...inSight, ...sources])], git, headers)).commits;
  context.read = read;
  const notes: Ledger[] = [];
  const recorded: ReconciledLedger[] = [];
  const subjects = subjectRedaction(projectDir, git, request.onProblem ?? loggedProblems(projectDir, 'reconcile'));
  for (const [position, commit] of pending.entries()) {
    const skipFull = request.depth === 'full' && !request.retry && cache.no_source[commit] === ledgerCount;
    const target = new Target(commit, git, read.get(commit));
    const found = await findSources(target, context, skipFull);
    if (found === 'fetch') {
      report.deferred!.unshift(...pending.slice(position));
      break;
    }
    if (!found || found.mapped.from.size === 0) {
      if (request.depth === 'full') cache.no_source[commit] = ledgerCount;
      report.without_source.push(commit);
      continue;
    }
    delete cache.no_source[commit];
    const { mapped, method } = found;
    const from = [...mapped.from].sort();
    const withoutLedger = [...mapped.withoutLedger].sort();
    const info = await target.info();
    const ledger = buildRecordLedger(info, mapped.files, {
      reconciled: { from, ...(withoutLedger.length > 0 ? { without_ledger: withoutLedger } : {}) },
      ...(found.recovered ? { recovered: found.recovered } : {}),
    });
    const fresh = !index.has(commit);
    const written = request.dryRun
      ? false
      : await record(projectDir, info, ledger, method === 'patch-id' ? from[0] : undefined, git, fresh, notes, subjects);
    if (!request.dryRun) recorded.push({ info, ledger, files: mapped.files });
    // A commit reconciled here can be the source of a later one (a cherry-pick of a squash).
    views.set(commit, readLedgerLine(ledger));
    report.reconciled.push({
      commit,
      method,
      sources: from,
      without_ledger: withoutLedger,
      lines: { mixed: 0, unknown: 0, ...ledger.record.metadata['dev.tracer'].lines },
      ledger_sha: ledger.sha,
      written,
    });
  }
  // Independent: git writes the notes while the claims are worked out. Both end before the lock is released, even when one fails.
  const written = await Promise.allSettled([
    writeLedgerNotes(notes, git, headers.get(notesTip)?.info.commit ?? ''),
    recordReconciledClaims(projectDir, recorded),
  ]);
  for (const outcome of written) if (outcome.status === 'rejected') throw outcome.reason;
  // blame, show and stats write nothing unless they reconciled a commit (then they wrote its ledger anyway).
  const learnt = JSON.stringify(cache) !== cacheBefore && (request.depth === 'full' || report.reconciled.length > 0);
  if (!request.dryRun && learnt) await writeReconcileCache(projectDir, cache).catch(() => undefined);
  return report;
}

async function listTargets(request: ReconcileRequest): Promise<string[]> {
  const walk = request.walk === false ? ['--no-walk=unsorted'] : [];
  const args = ['rev-list', '--no-merges', ...walk, `--max-count=${request.limit ?? DEFAULT_LIMIT}`, ...request.revisions, '--'];
  try {
    return (await runGit(args, request.git)).split('\n').filter(Boolean).reverse();
  } catch (error) {
    // A repository without a commit yet has nothing to reconcile; asked only then, so a reconcile costs one git call less.
    const born = await runGit(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], request.git).catch(() => '');
    if (error instanceof GitCommandError && born.trim() === '') return [];
    throw error;
  }
}

/** Files with at least one line someone wrote: a file of blank lines is nobody's work. */
function attributableFiles(added: AddedLines): AddedLines {
  return new Map([...added].filter(([, lines]) => lines.some((line) => isAttributableLine(line.text))));
}

/** `commits`: all of them in this clone (a ledger pulled for a commit this clone never fetched has no patch to read yet). */
async function fillPatchIds(cache: ReconcileCache, commits: readonly string[], git: GitOptions, diff?: string): Promise<void> {
  const unknown = [...new Set(commits.filter((commit) => cache.patch_ids[commit] === undefined))];
  if (unknown.length === 0) return;
  // `diff`: every one of `commits` already diffed (or a merge, which diff-tree leaves out).
  const computed = diff === undefined ? await patchIds(unknown, git) : await patchIdsOf(diff, git);
  for (const commit of unknown) cache.patch_ids[commit] = computed.get(commit) ?? '';
}

interface SourceContext {
  request: ReconcileRequest;
  cache: ReconcileCache;
  ledgerOf: (commit: string) => LedgerView | undefined;
  byPatch: Map<string, string[]>;
  ledgered: string[];
  headers: Map<string, CommitObject>;
  /** The ledgered commits this clone has. */
  present: Set<string>;
  /** Commits read ahead, in one batch. */
  read?: Map<string, { info: CommitInfo; changes?: CommitChanges }>;
}

interface Found {
  method: ReconcileMethod;
  mapped: MappedLines;
  recovered?: Record<string, Array<[number, number]>>;
}

/** The commit being reconciled, read from git only once a source is in sight: most commits without a ledger have none. */
class Target {
  private infoRead?: Promise<CommitInfo>;
  private addedRead?: Promise<AddedLines>;
  constructor(
    readonly commit: string,
    private readonly git: GitOptions,
    read?: { info: CommitInfo; changes?: CommitChanges },
  ) {
    if (read) this.infoRead = Promise.resolve(read.info);
    if (read?.changes) this.addedRead = Promise.resolve(attributableFiles(read.changes.added));
  }

  info(): Promise<CommitInfo> {
    return (this.infoRead ??= readCommit(this.commit, this.git));
  }

  /** The files where the commit added a line someone wrote: a file of blank lines is nobody's work. */
  added(): Promise<AddedLines> {
    return (this.addedRead ??= this.info().then(async (info) => attributableFiles((await readChanges(info, this.git)).added)));
  }
}

/** The sources of a commit; 'fetch' when a bounded run would need the request's head from the remote to tell. */
async function findSources(target: Target, context: SourceContext, skipFull: boolean): Promise<Found | 'fetch' | undefined> {
  const { git } = context.request;
  const commit = target.commit;
  const same = samePatch(commit, context);
  if (same !== undefined) {
    const added = await target.added();
    const ahead = context.read?.get(same)?.changes;
    const theirs = (ahead ?? (await readChanges(await readCommit(same, git), git))).added;
    const mapped =
      mapByPatch(added, theirs, same, context.ledgerOf(same)!) ??
      (await mapThroughBlame(commit, added, same, new Set([same]), context.ledgerOf, git));
    return { method: 'patch-id', mapped };
  }
  const pullRequest = pullRequestOf(context.headers.get(commit)?.message ?? '');
  const full = context.request.depth === 'full' && !skipFull;
  if (!pullRequest && !full) return undefined;
  const info = await target.info();
  const landedOn = info.parents[0];
  if (landedOn === undefined) return undefined;
  let fetchWanted = false;
  if (pullRequest) {
    const policy: FetchPolicy = {
      fetch: full && !context.request.bounded,
      timeoutMs: context.request.fetchTimeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS,
      skip: context.request.retry ? undefined : new Set(Object.keys(context.cache.missing_heads)),
      onFetchFailed: (ref) => (context.cache.missing_heads[ref] = true),
      onFetchWanted: () => (fetchWanted = true),
    };
    const head = await pullRequestHead(pullRequest, git, policy);
    if (head !== undefined) {
      const commits = await requestCommits(head, landedOn, git);
      if (commits.some((commit) => context.ledgerOf(commit) !== undefined)) {
        const mapped = await mapThroughBlame(commit, await target.added(), head, new Set(commits), context.ledgerOf, git);
        return { method: 'pull-request', mapped };
      }
    }
  }
  if (!full) return undefined;
  const branch = await sameCombinedChange(info, landedOn, context);
  if (branch !== undefined) {
    return {
      method: 'branch',
      mapped: await mapThroughBlame(commit, await target.added(), branch.head, branch.commits, context.ledgerOf, git),
    };
  }
  // Only a merged request may gain lines by content: a person's own commit never does.
  if (!pullRequest) return undefined;
  // The head the remote may have maps every line exactly; content only recovers some. A bounded run leaves the commit to a run that may fetch.
  if (fetchWanted) return 'fetch';
  return recoverLines(target, info, context);
}

/** Ledgers whose commits this clone does not have, recorded up to RECOVERY_DAYS before the commit: the request's, if any. */
async function recoverLines(target: Target, info: CommitInfo, context: SourceContext): Promise<Found | undefined> {
  const { git } = context.request;
  const present = context.present;
  const since = new Date(Date.parse(info.ts) - RECOVERY_DAYS * 86_400_000).toISOString();
  const sources = context.ledgered
    .filter((commit) => !present.has(commit))
    .map((commit) => context.ledgerOf(commit))
    .filter((view): view is LedgerView => view !== undefined && view.ts !== null && view.ts <= info.ts && view.ts >= since);
  if (sources.length === 0) return undefined;
  const added = await target.added();
  const texts = new Map<string, string[]>();
  for (const path of added.keys()) {
    const text = await runGit(['cat-file', 'blob', `${info.commit}:${path}`], git);
    texts.set(path, text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n'));
  }
  const recovered = recoverByContent(added, texts, await renames(info.parents[0]!, info.commit, git), sources);
  if (!recovered) return undefined;
  return {
    method: 'content-hash',
    mapped: { files: recovered.files, from: recovered.from, withoutLedger: new Set() },
    recovered: recovered.ranges,
  };
}

/** new path → old path of the files a commit renamed (git's default similarity, as the ledger writer reads diffs). */
async function renames(from: string, to: string, git: GitOptions): Promise<Map<string, string>> {
  const out = await runGit(['diff-tree', '-r', '-z', '--find-renames=50%', '--name-status', '--no-commit-id', from, to], git);
  const fields = out.split('\u0000');
  const found = new Map<string, string>();
  for (let index = 0; index < fields.length;) {
    const status = fields[index++] ?? '';
    if (status.startsWith('R')) {
      const old = fields[index++]!;
      found.set(fields[index++]!, old);
    } else if (status !== '') index += status.startsWith('C') ? 2 : 1;
  }
  return found;
}

/**
 * The ledgered commit with the same patch and the same author (name, email and
 * time: a rebase and a cherry-pick keep them, a person typing the same lines
 * again does not). Several (the original and its rebased copies): the one not
 * itself reconciled, then the lowest id, so every clone that holds the same
 * commits picks the same one.
 */
function samePatch(commit: string, context: SourceContext): string | undefined {
  const patch = context.cache.patch_ids[commit];
  const author = context.headers.get(commit)?.author;
  if (!patch || !author) return undefined;
  const candidates = (context.byPatch.get(patch) ?? []).filter(
    (other) => other !== commit && context.headers.get(other)?.author === author && context.ledgerOf(other) !== undefined,
  );
  candidates.sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  return candidates[0];
  function rank(candidate: string): number {
    return context.ledgerOf(candidate)!.reconciled === undefined ? 0 : 1;
  }
}

/** A branch of ledgered commits, not merged where the commit landed, whose combined change is the commit's: the only one. */
async function sameCombinedChange(
  info: CommitInfo,
  landedOn: string,
  context: SourceContext,
): Promise<{ head: string; commits: Set<string> } | undefined> {
  const { git } = context.request;
  const present = [...context.present];
  const tips = (await unmergedTips(present, landedOn, git))
    .map((tip) => ({ tip, ts: context.ledgerOf(tip)?.ts ?? '' }))
    .filter(({ ts }) => ts !== '' && ts <= info.ts)
    .sort((a, b) => (a.ts === b.ts ? (a.tip < b.tip ? -1 : 1) : a.ts > b.ts ? -1 : 1))
    .slice(0, MAX_TIPS);
  if (tips.length === 0) return undefined;
  const own = await rangePatchId(landedOn, info.commit, git);
  if (own === undefined) return undefined;
  const matches: string[] = [];
  for (const { tip } of tips) {
    const base = (await runGit(['merge-base', landedOn, tip], git)).trim();
    if (base !== '' && (await rangePatchId(base, tip, git)) === own) matches.push(tip);
  }
  if (matches.length !== 1) return undefined;
  const head = matches[0]!;
  return { head, commits: new Set(await requestCommits(head, landedOn, git)) };
}

/**
 * Appends the ledger and its commit link (its subject as `subjects` keeps it,
 * as the post-commit hook's link does) and writes the note; true when the
 * ledger was new. `fresh`: the commit had no ledger at all, so neither row can
 * be there yet and the files are not searched for them.
 */
async function record(
  projectDir: string,
  info: CommitInfo,
  ledger: Ledger,
  rewrittenFrom: string | undefined,
  git: GitOptions,
  fresh: boolean,
  notes: Ledger[],
  subjects: SubjectRedaction,
): Promise<boolean> {
  const append = async (file: string, row: Record<string, unknown>, idMember: string) => {
    if (!fresh) return appendOnce(join(projectDir, file), row, idMember);
    appendRecord(join(projectDir, file), row);
    return true;
  };
  const appended = await append(LEDGERS_FILE, ledger, 'sha');
  const sessions = new Set<string>();
  for (const file of ledger.record.files) {
    for (const conversation of file.conversations) {
      const url = conversation.url;
      if (url !== undefined && /^[a-z][a-z0-9+.-]*:\/\/[^/]+\/[^/]+$/i.test(url))
        sessions.add(decodeURIComponent(url.slice(url.lastIndexOf('/') + 1)));
    }
  }
  const link = commitLinkRecord(ledger, [...sessions].sort(), rewrittenFrom, info, await subjects(info.subject));
  await append(COMMIT_LINKS_FILE, link, 'id');
  // New notes are written together once every ledger is recorded (writeLedgerNotes).
  if (fresh) notes.push(ledger);
  else await writeLedgerNote(ledger, git);
  return appended;
}
