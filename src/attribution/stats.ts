// `tracer stats`: the lines added over a range of commits, by contributor
// type, per agent and per model (agents' lines), and per author or file when
// asked. One `git log` for the range (each commit's counted lines kept in
// cache/numstat.jsonl), one pass over ledgers.jsonl.
import { ExitCode, TracerError } from '../core/errors.js';
import { GitCommandError } from '../capture/ledger/git-exec.js';
import { cachedCommitDiffs } from './commit-diff-cache.js';
import { addCounts, tallyCommit, zeroCounts, type CommitLines, type LineCounts } from './commit-lines.js';
import { commitId, defaultBranchTip, shortRef, type GitOptions } from './git-read.js';
import { readLedgers } from './ledger-view.js';
import type { LockHolder } from '../store/file-lock.js';

export const BREAKDOWNS = ['agent', 'model', 'author', 'file'] as const;
export type Breakdown = (typeof BREAKDOWNS)[number];

export interface StatsReport {
  range: string;
  commits: number;
  commits_with_ledger: number;
  lines: LineCounts;
  /** Agents' lines over every line added (null when none was added). */
  ai_share: number | null;
  by_agent: Record<string, number>;
  by_model: Record<string, number>;
  by_author?: Record<string, LineCounts>;
  by_file?: Record<string, LineCounts>;
}

export interface StatsQuery {
  projectDir: string;
  git: GitOptions;
  range?: string;
  by?: Breakdown;
  onCorrupt?: (line: number) => void;
  /** Also collect every conversation URL the project's ledgers name (RangeTallies.urls), in the same pass. */
  urls?: boolean;
  /** Told once a wait for the background reconcile lasts. */
  onWait?: (holder: LockHolder) => void;
}

/** What a range's figures are made of: its commits (newest first), their ledgers and each commit's lines by contributor. */
export interface RangeTallies {
  label: string;
  revisions: string[];
  tallies: CommitLines[];
  /** Every conversation URL some ledger of the project names, in the range or not (`urls: true` in the query). */
  urls?: Set<string>;
}

export async function rangeStats(query: StatsQuery): Promise<StatsReport> {
  return statsOf(await rangeTallies(query), query.by);
}

export async function rangeTallies(query: StatsQuery): Promise<RangeTallies> {
  const { label, revisions } = query.range === undefined ? await defaultRange(query.git) : explicitRange(query.range);
  let diffs;
  try {
    diffs = await cachedCommitDiffs(revisions, query.git, query.projectDir);
  } catch (error) {
    if (error instanceof GitCommandError) throw unknownRange(label, error);
    throw error;
  }
  const wanted = new Set(diffs.map((diff) => diff.commit));
  let urls = query.urls ? new Set<string>() : undefined;
  const collect = urls && ((text: string) => collectUrls(text, urls!));
  let ledgers = await readLedgers(query.projectDir, wanted, query.onCorrupt, collect);
  const missing = diffs.filter((diff) => diff.added !== undefined && !ledgers.has(diff.commit)).map((diff) => diff.commit);
  if (missing.length > 0) {
    const { reconcileOnRead } = await import('./reconcile/on-read.js');
    if (await reconcileOnRead(query.projectDir, query.git, missing, query.onWait ? { onWait: query.onWait } : {})) {
      urls = query.urls ? new Set<string>() : undefined;
      ledgers = await readLedgers(query.projectDir, wanted, query.onCorrupt, urls && ((text: string) => collectUrls(text, urls!)));
    }
  }
  return { label, revisions, tallies: diffs.map((diff) => tallyCommit(diff, ledgers.get(diff.commit))), ...(urls ? { urls } : {}) };
}

export function statsOf(range: RangeTallies, by: Breakdown | undefined): StatsReport {
  const report: StatsReport = {
    range: range.label,
    commits: range.tallies.length,
    commits_with_ledger: 0,
    lines: zeroCounts(),
    ai_share: null,
    by_agent: {},
    by_model: {},
    ...(by === 'author' ? { by_author: {} } : {}),
    ...(by === 'file' ? { by_file: {} } : {}),
  };
  for (const tally of range.tallies) {
    if (tally.ledger) report.commits_with_ledger += 1;
    addCounts(report.lines, tally.lines);
    for (const { conversation, lines } of tally.conversations) {
      if (conversation.type !== 'ai') continue;
      bump(report.by_agent, conversation.agent ?? 'unknown', lines);
      bump(report.by_model, conversation.model_id ?? 'unknown', lines);
    }
    if (report.by_author) addCounts((report.by_author[tally.author || 'unknown'] ??= zeroCounts()), tally.lines);
    if (report.by_file) for (const [path, counts] of tally.files) addCounts((report.by_file[path] ??= zeroCounts()), counts);
  }
  const total = report.lines.ai + report.lines.human + report.lines.mixed + report.lines.unknown;
  report.ai_share = total === 0 ? null : Math.round((report.lines.ai / total) * 10_000) / 10_000;
  report.by_agent = sortedByValue(report.by_agent);
  report.by_model = sortedByValue(report.by_model);
  return report;
}

/** A conversation's `url` member as JSON writes it; its escapes undone with JSON.parse. */
const URL_MEMBER = /"url"\s*:\s*"((?:[^"\\]|\\.)*)"/g;

function collectUrls(text: string, into: Set<string>): void {
  // Most lines are read only for this: a look for the member first, the expression only where it is.
  if (!text.includes('"url"')) return;
  URL_MEMBER.lastIndex = 0;
  for (const match of text.matchAll(URL_MEMBER)) into.add(match[1]!.includes('\\') ? (JSON.parse(`"${match[1]!}"`) as string) : match[1]!);
}

function bump(counts: Record<string, number>, key: string, lines: number): void {
  counts[key] = (counts[key] ?? 0) + lines;
}

function sortedByValue(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0)));
}

function explicitRange(range: string): { label: string; revisions: string[] } {
  if (range.trim() === '' || range.startsWith('-')) throw unknownRange(range);
  return { label: range, revisions: [range] };
}

/** The current branch since it left the default branch; the whole history when it never left it. */
async function defaultRange(git: GitOptions): Promise<{ label: string; revisions: string[] }> {
  const head = await commitId('HEAD', git);
  if (head === undefined) {
    throw new TracerError('no_history', 'This repository has no commit yet; commit something first, then ask for stats.', {
      exitCode: ExitCode.usage,
    });
  }
  const base = await defaultBranchTip(git);
  if (base !== undefined && base.commit !== head) {
    const label = `${shortRef(base.ref)}..HEAD`;
    return { label, revisions: [`${base.ref}..HEAD`] };
  }
  return { label: 'HEAD', revisions: ['HEAD'] };
}

function unknownRange(range: string, cause?: unknown): TracerError {
  return new TracerError(
    'unknown_range',
    `"${range}" is not a range of commits in this repository; pass A..B (for example main..HEAD) or a single revision.`,
    { exitCode: ExitCode.usage, cause },
  );
}
