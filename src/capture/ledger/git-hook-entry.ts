// `tracer commit-link` and `tracer rewrite-ledger` run inside git's post-commit
// and post-rewrite hooks. They must never fail a git operation nor clutter its
// output: by default they print nothing, exit 0 whatever happens, and write each
// failure as one JSON line to hook-errors.log in the project folder. Run by hand
// with --verbose they say what they did and report failures with their exit code.
import { spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { commitSummaryEnabled, printCommitSummary } from '../../attribution/commit-summary.js';
import { ExitCode, TracerError } from '../../core/errors.js';
import { TRACER_BIN } from '../../core/package-root.js';
import { tracerHome } from '../../store/home.js';
import { findGit } from '../../store/git.js';
import { resolveProject } from '../../store/project.js';
import { resolveDestination } from '../hook/destination.js';
import { logHookFailure, type HookFailure } from '../hook/error-log.js';
import { GitCommandError, runGit } from './git-exec.js';
import { linkCommit, type LinkResult } from './link-commit.js';
import { loggedProblems } from './link-subject.js';
import { parseRewritePairs, REWRITE_KINDS, type RewriteKind } from './rewrite.js';

export interface GitHookIo {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdout: Writable;
  stderr: Writable;
  verbose: boolean;
}

/** `summary: false`: the fold in the background, whose stderr goes nowhere. */
export async function runCommitLink(rev: string, io: GitHookIo & { summary?: boolean }): Promise<number> {
  return guarded('post-commit', io, async (dir) => {
    const git = { cwd: io.cwd, env: io.env };
    const result = await linkCommit({ projectDir: dir, git, rev });
    if (io.verbose) io.stdout.write(`${describe(result)}\n`);
    if (io.summary !== false && (await commitSummaryEnabled(dir, tracerHome(io.env))))
      await printCommitSummary(result.ledger, git, io.stderr);
  });
}

/**
 * `tracer commit-link --spooled`: the post-commit hook spooled the commit and, with commit_summary on, waits
 * for this to print its bar. The registry folded the spool first, so the ledger is there; when it is not (the
 * fold could not take the spool), nothing is built here: the fold that takes the spool builds it, in order.
 */
export async function printSpooledSummary(rev: string, io: GitHookIo): Promise<number> {
  return guarded('post-commit', io, async (dir) => {
    if (!(await commitSummaryEnabled(dir, tracerHome(io.env)))) return;
    const git = { cwd: io.cwd, env: io.env };
    const commit = (await runGit(['rev-parse', '--verify', `${rev}^{commit}`], git)).trim();
    const { readRecords } = await import('../../store/jsonl.js');
    const { join } = await import('node:path');
    const { LEDGERS_FILE } = await import('./ledger-record.js');
    let ledger: unknown;
    for await (const row of readRecords<{ commit?: unknown }>(join(dir, LEDGERS_FILE), { mayMatch: (line) => line.includes(commit) }))
      if (row.commit === commit) ledger = row;
    if (ledger !== undefined) await printCommitSummary(ledger, git, io.stderr);
  });
}

/** The commit `rev` names, spooled as the post-commit hook spools it, for the fold that can take the spool. */
export async function spoolCommit(rev: string, io: GitHookIo): Promise<number> {
  return guarded('post-commit', io, async () => {
    const commit = (await runGit(['rev-parse', '--verify', `${rev}^{commit}`], { cwd: io.cwd, env: io.env })).trim();
    const [{ writeSpoolEntry }, { spoolDir, GIT_AGENT, GIT_ENTRY_SUFFIX }] = await Promise.all([
      import('../spool/entry.js'),
      import('../spool/pending.js'),
    ]);
    writeSpoolEntry(
      spoolDir(tracerHome(io.env)),
      { agent: GIT_AGENT, event: 'post-commit', cwd: io.cwd, env: io.env, payload: `${commit}\n` },
      GIT_ENTRY_SUFFIX,
    );
  });
}

/** A git entry of the spool naming a hook tracer does not install: written by something else. */
export async function logUnknownGitEntry(event: string, io: GitHookIo): Promise<number> {
  return guarded('post-commit', io, async () => {
    throw new TracerError(
      'invalid_spool_entry',
      `The spool holds a git entry for "${event}", which is not a hook tracer installs; it was removed.`,
    );
  });
}

export async function runRewriteLedger(kind: string, stdin: Readable, io: GitHookIo): Promise<number> {
  return guarded('post-rewrite', io, async (dir) => {
    if (!(REWRITE_KINDS as readonly string[]).includes(kind)) {
      throw new TracerError(
        'invalid_rewrite_kind',
        `"${kind}" is not a rewrite git reports; pass amend or rebase, as git's post-rewrite hook does.`,
        { exitCode: ExitCode.usage },
      );
    }
    const pairs = parseRewritePairs(await readAll(stdin));
    const failures: TracerError[] = [];
    for (const { from, to } of pairs) {
      try {
        const result = await linkCommit({ projectDir: dir, git: { cwd: io.cwd, env: io.env }, rev: to, rewrittenFrom: from });
        if (io.verbose) io.stdout.write(`${kind as RewriteKind} ${from.slice(0, 12)} -> ${describe(result)}\n`);
      } catch (error) {
        // One commit that cannot be read must not cost the others their ledgers.
        failures.push(asTracerError(error));
        logHookFailure(dir, { agent: 'git', event: 'post-rewrite' }, failureOf(error));
      }
    }
    if (failures.length > 0 && io.verbose) throw failures[0]!;
  });
}

/**
 * Commits git's post-merge hook reconciles before `git pull` returns; more, or
 * one whose pull-request head must be fetched, go to a run in the background
 * that blame, show, stats and `tracer pull` wait for (reconcile/lock.ts).
 */
const HOOK_MAX_COMMITS = 20;

/**
 * git's post-merge hook, after `git pull` (or a merge): the commits that arrived
 * and have no ledger are reconciled with their branch's ledgers
 * (src/attribution/reconcile/). Whatever happens, the pull has already worked
 * and stays so. With `range`, the hook's run in the background: no bounds.
 */
export async function runPostMerge(io: GitHookIo, range?: string): Promise<number> {
  return guarded('post-merge', io, async (dir) => {
    const git = { cwd: io.cwd, env: io.env };
    const { reconcile } = await import('../../attribution/reconcile/reconcile.js');
    const onProblem = loggedProblems(dir, 'post-merge');
    if (range !== undefined) {
      const { clearHandOff } = await import('../../attribution/reconcile/lock.js');
      try {
        const report = await reconcile({ projectDir: dir, git, revisions: [range], depth: 'full', onProblem });
        if (io.verbose) writeReconciled(io, report.reconciled);
      } finally {
        clearHandOff(dir);
      }
      return;
    }
    // ORIG_HEAD is where the branch stood before the merge.
    const report = await reconcile({
      projectDir: dir,
      git,
      revisions: ['ORIG_HEAD..HEAD'],
      depth: 'full',
      bounded: { maxCommits: HOOK_MAX_COMMITS },
      onProblem,
    }).catch(async (error: unknown) => {
      // Without it (a first pull into an empty branch) there is nothing to compare: asked only then, so a pull pays one git call less.
      if (error instanceof GitCommandError && (await mergedSpan(git)) === undefined) return undefined;
      throw error;
    });
    if (report === undefined) return;
    if (io.verbose) writeReconciled(io, report.reconciled);
    if (report.deferred !== undefined && report.deferred.length > 0) {
      // As commit ids: ORIG_HEAD and HEAD move with the next pull.
      const span = await mergedSpan(git);
      if (span !== undefined) await continueInBackground(dir, span, io);
    }
  });
}

/** ORIG_HEAD..HEAD as commit ids; undefined without ORIG_HEAD. */
async function mergedSpan(git: { cwd: string; env: NodeJS.ProcessEnv }): Promise<string | undefined> {
  try {
    const [before, after] = (await runGit(['rev-parse', 'ORIG_HEAD^{commit}', 'HEAD^{commit}'], git)).trim().split('\n');
    return before && after ? `${before}..${after}` : undefined;
  } catch (error) {
    if (error instanceof GitCommandError) return undefined;
    throw error;
  }
}

/** `tracer reconcile --post-merge <span>`, detached: git pull returns now; its failures go to hook-errors.log as the hook's do. */
async function continueInBackground(projectDir: string, span: string, io: GitHookIo): Promise<void> {
  const child = spawn(process.execPath, [TRACER_BIN, 'reconcile', '--post-merge', span], {
    cwd: io.cwd,
    env: io.env,
    detached: true,
    stdio: 'ignore',
  });
  // Waited for, so a program that cannot start is logged before this process exits.
  const started = await new Promise<boolean>((resolve) => {
    child.once('spawn', () => resolve(true));
    child.once('error', (error) => {
      logHookFailure(projectDir, { agent: 'git', event: 'post-merge' }, failureOf(error));
      resolve(false);
    });
  });
  child.unref();
  // Before git pull returns, so a blame run the next moment waits for that run.
  if (started) (await import('../../attribution/reconcile/lock.js')).markHandOff(projectDir, child.pid!);
}

function writeReconciled(io: GitHookIo, reconciled: ReadonlyArray<{ commit: string; method: string; sources: string[] }>): void {
  for (const done of reconciled) {
    io.stdout.write(`${done.commit.slice(0, 12)}: reconciled by ${done.method} from ${done.sources.length} commit(s)\n`);
  }
}

async function guarded(
  event: 'post-commit' | 'post-rewrite' | 'post-merge',
  io: GitHookIo,
  work: (projectDir: string) => Promise<void>,
): Promise<number> {
  const home = tracerHome(io.env);
  let logDir = existingProjectDir(io, home) ?? home;
  try {
    const destination = findGit(io.cwd, io.env) ? await resolveDestination(io.cwd, home, io.env) : undefined;
    if (!destination?.root) {
      throw new TracerError(
        'not_a_git_repository',
        `${io.cwd} is not inside a git repository; run this from the repository whose commits you want attributed.`,
        {
          exitCode: ExitCode.localState,
        },
      );
    }
    logDir = destination.dir;
    await work(destination.dir);
    return ExitCode.ok;
  } catch (error) {
    if (!io.verbose) {
      logHookFailure(logDir, { agent: 'git', event }, failureOf(error));
      return ExitCode.ok;
    }
    const failure = asTracerError(error);
    io.stderr.write(`tracer: ${failure.message} (${failure.code})\n`);
    return failure.exitCode;
  }
}

function existingProjectDir(io: GitHookIo, home: string): string | undefined {
  try {
    return resolveProject({ cwd: io.cwd, home, env: io.env }).dir;
  } catch {
    return undefined;
  }
}

function describe({ ledger, ledgerAppended }: LinkResult): string {
  const { ai, human } = ledger.record.metadata['dev.tracer'].lines;
  const traces = ledger.trace_ids.length;
  return `${ledger.commit.slice(0, 12)}: ${ai} line${ai === 1 ? '' : 's'} from ${traces} agent trace${traces === 1 ? '' : 's'}, ${human} by a person; ledger ${ledger.sha.slice(0, 12)}${ledgerAppended ? '' : ' (already recorded)'}`;
}

async function readAll(stdin: Readable & { isTTY?: boolean }): Promise<string> {
  if (stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of stdin as AsyncIterable<Buffer | string>)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

function asTracerError(error: unknown): TracerError {
  if (error instanceof TracerError) return error;
  const message = (error instanceof Error ? error.message : String(error)).replace(/\.$/, '');
  return new TracerError('internal_error', `Unexpected failure: ${message}; run again with --verbose and report it.`, { cause: error });
}

function failureOf(error: unknown): HookFailure {
  const failure = asTracerError(error);
  return { code: failure.code, message: failure.message };
}
