// `tracer show`: one commit's attribution: the lines it added by contributor
// type, per file, the conversations behind the agents' lines (with each
// session's latest summary) and the commit link tracer recorded for it.
import { join } from 'node:path';
import { readRecords } from '../store/jsonl.js';
import { readCommitDiffs, tallyCommit, type CommitLines, type LineCounts } from './commit-lines.js';
import type { CommitCost, ConversationUsageJson } from '../cost/commit-cost.js';
import type { PriceTable } from '../cost/prices.js';
import type { FormatContext } from '../transcript/agents.js';
import { ExitCode, TracerError } from '../core/errors.js';
import { commitId, unknownRevision, type GitOptions } from './git-read.js';
import { lineContributor, readLedgers, type LedgerView } from './ledger-view.js';
import type { LockHolder } from '../store/file-lock.js';

export interface ShowReport {
  commit: string;
  subject: string;
  author: string;
  ledger_sha: string | null;
  lines: LineCounts;
  files: Array<{ path: string; lines: LineCounts }>;
  conversations: Array<{
    agent: string | null;
    model_id: string | null;
    url: string | null;
    summary: string | null;
    lines: number;
    /** The whole conversation's tokens and cost (null when tracer show was asked without them). */
    usage: ConversationUsageJson | null;
  }>;
  /** The conversations' tokens and cost, each counted once, with the price table's version; null when not asked for. */
  cost: Omit<CommitCost, 'by_url' | 'fate'> | null;
  /** The commit's AI lines followed to the tip of the default branch (or HEAD): still there, or deleted, by whom. */
  fate: CommitCost['fate'];
  /**
   * The agent lines reconcile re-attached by content hash (the branch's commits
   * were gone), as `tracer blame` marks them `recovered`: how many, and their
   * ranges per file. Null when the commit has none.
   */
  recovered: { lines: number; files: Array<{ path: string; ranges: Array<[number, number]> }> } | null;
  /** The commit link: sessions used, and the commit this one replaced (amend, rebase). */
  link: { session_ids: string[]; rewritten_from: string | null } | null;
}

export const SUMMARIES_FILE = 'session-summaries.jsonl';
export const COMMIT_LINKS_FILE = 'commit-links.jsonl';

export interface ShowQuery {
  projectDir: string;
  git: GitOptions;
  rev: string;
  /** Reads the conversations' usage and prices it. */
  cost?: { context: FormatContext; prices: PriceTable };
  /** Told once a wait for the background reconcile lasts. */
  onWait?: (holder: LockHolder) => void;
}

export async function showCommit(query: ShowQuery): Promise<ShowReport> {
  const commit = await commitId(query.rev, query.git);
  if (commit === undefined && query.rev === 'HEAD') {
    throw new TracerError('no_history', 'This repository has no commit yet; commit something first, then show it.', {
      exitCode: ExitCode.usage,
    });
  }
  if (commit === undefined) throw unknownRevision(query.rev);
  const read = await Promise.all([
    readCommitDiffs([commit], query.git, 1),
    readLedgers(query.projectDir, new Set([commit])),
    commitLink(query.projectDir, commit),
  ]);
  const diff = read[0][0];
  let [, ledgers, link] = read;
  if (!ledgers.has(commit) && diff!.added !== undefined) {
    const { reconcileOnRead } = await import('./reconcile/on-read.js');
    if (await reconcileOnRead(query.projectDir, query.git, [commit], query.onWait ? { onWait: query.onWait } : {})) {
      [ledgers, link] = await Promise.all([readLedgers(query.projectDir, new Set([commit])), commitLink(query.projectDir, commit)]);
    }
  }
  const tally = tallyCommit(diff!, ledgers.get(commit));
  const urls = new Set(tally.conversations.map(({ conversation }) => conversation.url).filter((url): url is string => url !== null));
  const [summaries, cost] = await Promise.all([
    latestSummaries(query.projectDir, urls),
    query.cost ? commitCostOf(query, tally) : Promise.resolve(undefined),
  ]);
  return {
    commit,
    subject: diff!.subject,
    author: diff!.author,
    ledger_sha: tally.ledger?.sha ?? null,
    lines: tally.lines,
    files: [...tally.files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([path, lines]) => ({ path, lines })),
    conversations: tally.conversations
      .map(({ conversation, lines }) => ({
        agent: conversation.agent,
        model_id: conversation.model_id,
        url: conversation.url,
        summary: conversation.url === null ? null : (summaries.get(conversation.url) ?? null),
        lines,
        usage: (conversation.url === null ? undefined : cost?.by_url[conversation.url]) ?? null,
      }))
      .sort((a, b) => b.lines - a.lines),
    cost: cost
      ? { prices: cost.prices, tokens: cost.tokens, cost_usd: cost.cost_usd, cost_known: cost.cost_known, refused: cost.refused }
      : null,
    fate: cost?.fate ?? null,
    recovered: recoveredLines(tally.ledger),
    link,
  };
}

async function commitCostOf(query: ShowQuery, tally: CommitLines): Promise<CommitCost> {
  const { commitCost } = await import('../cost/commit-cost.js');
  return commitCost({ projectDir: query.projectDir, git: query.git, context: query.cost!.context, prices: query.cost!.prices, tally });
}

/** The recovered ranges of a ledger, and how many of their lines it gives an agent (counted as `lines` counts them: every line an agent's range covers). */
function recoveredLines(ledger: LedgerView | undefined): ShowReport['recovered'] {
  if (!ledger?.recovered || ledger.recovered.size === 0) return null;
  let lines = 0;
  const files: NonNullable<ShowReport['recovered']>['files'] = [];
  for (const [path, ranges] of [...ledger.recovered].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (ranges.length === 0) continue;
    files.push({ path, ranges: ranges.map(([start, end]): [number, number] => [start, end]) });
    for (const [start, end] of ranges)
      for (let line = start; line <= end; line += 1) {
        const type = lineContributor(ledger, path, line).type;
        if (type === 'ai' || type === 'mixed') lines += 1;
      }
  }
  return files.length === 0 ? null : { lines, files };
}

async function commitLink(projectDir: string, commit: string): Promise<ShowReport['link']> {
  let found: ShowReport['link'] = null;
  for await (const row of readRecords<Record<string, unknown>>(join(projectDir, COMMIT_LINKS_FILE), {
    mayMatch: (line) => line.includes(commit),
  })) {
    if (typeof row !== 'object' || row === null || row.commit !== commit) continue;
    found = {
      session_ids: Array.isArray(row.session_ids) ? row.session_ids.filter((id): id is string => typeof id === 'string') : [],
      rewritten_from: typeof row.rewritten_from === 'string' ? row.rewritten_from : null,
    };
  }
  return found;
}

/** The summary with the latest ts per conversation URL (file order breaks ties), for the URLs asked for. */
async function latestSummaries(projectDir: string, urls: ReadonlySet<string>): Promise<Map<string, string>> {
  const latest = new Map<string, { ts: string; summary: string }>();
  if (urls.size === 0) return new Map();
  for await (const row of readRecords<Record<string, unknown>>(join(projectDir, SUMMARIES_FILE))) {
    if (typeof row !== 'object' || row === null || typeof row.conversation_url !== 'string' || typeof row.summary !== 'string') continue;
    if (!urls.has(row.conversation_url)) continue;
    const ts = typeof row.ts === 'string' ? row.ts : '';
    const current = latest.get(row.conversation_url);
    if (!current || ts >= current.ts) latest.set(row.conversation_url, { ts, summary: row.summary });
  }
  return new Map([...latest].map(([url, { summary }]) => [url, summary]));
}
