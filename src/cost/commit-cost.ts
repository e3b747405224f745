// `tracer show`'s cost: the tokens (by kind) and cost of each conversation
// behind a commit's AI lines, each whole, and what became of the commit's AI
// lines afterwards: followed through the first-parent history from the commit
// to the tip of the default branch (or HEAD, when the commit is not on it).
import type { CommitLines } from '../attribution/commit-lines.js';
import { commitId, defaultBranch, shortRef, type GitOptions } from '../attribution/git-read.js';
import { LedgerLines } from '../attribution/ledger-lines.js';
import { addFate, lineFates, reworkOf, zeroFate, type LineFate } from '../attribution/line-fates.js';
import { runGit } from '../capture/ledger/git-exec.js';
import { parseConversationUrl } from '../viewer/local/ledger-read.js';
import type { FormatContext } from '../transcript/agents.js';
import { addTokens, zeroTotals } from '../transcript/usage.js';
import { conversationCosts, type ConversationCost } from './conversation-cost.js';
import { addRefused } from './refusals.js';
import { tokenCounts, type TokenCounts } from './cost-section.js';
import { cachedDerived, ledgersStamp } from './derived-cache.js';
import type { PriceTable, UnpricedReason } from './prices.js';
import { traceSummary } from './trace-summary.js';

export interface ConversationUsageJson {
  usage: 'known' | 'unknown' | 'missing';
  reason: string | null;
  turns: number;
  requests: number;
  tokens: TokenCounts;
  cost_usd: number | null;
  cost_known: boolean;
  unpriced: Array<{ model: string; requests: number; reasons: UnpricedReason[] }>;
  /** Usage records refused (code → count): never counted, so the cost is not known whole. */
  refused: Record<string, number>;
}

export interface CommitCost {
  prices: string;
  /** The sum over the conversations behind the commit, each counted once. */
  tokens: TokenCounts;
  cost_usd: number | null;
  cost_known: boolean;
  /** The conversations' refused usage records (code → count). */
  refused: Record<string, number>;
  /** url → the conversation's usage. */
  by_url: Record<string, ConversationUsageJson>;
  /** The commit's AI lines, followed to `to` (a branch name or commit); null when nothing comes after the commit. */
  fate: (LineFate & { rework: number; to: string }) | null;
}

export async function commitCost(query: {
  projectDir: string;
  git: GitOptions;
  context: FormatContext;
  prices: PriceTable;
  tally: CommitLines;
}): Promise<CommitCost> {
  const { projectDir, git, tally } = query;
  const urls = new Map<string, string>();
  for (const { conversation } of tally.conversations) {
    const parsed = conversation.url === null ? undefined : parseConversationUrl(conversation.url);
    if (parsed && conversation.url !== null) urls.set(conversation.url, parsed.conversationId);
  }
  const traces = await traceSummary(projectDir);
  const costs = await conversationCosts({
    projectDir,
    context: query.context,
    prices: query.prices,
    conversations: new Map([...urls.values()].map((id) => [id, traces.get(id)])),
  });
  const tokens = zeroTotals();
  let usd: number | null = null;
  let known = urls.size > 0;
  const refused: Record<string, number> = {};
  const byUrl: Record<string, ConversationUsageJson> = {};
  for (const [url, id] of urls) {
    const cost = costs.get(id)!;
    byUrl[url] = usageJson(cost);
    addTokens(tokens, cost.tokens);
    if (cost.usd !== null) usd = (usd ?? 0) + cost.usd;
    known &&= cost.cost_known;
    addRefused(refused, cost.refused);
  }
  return {
    prices: query.prices.version,
    tokens: tokenCounts(tokens),
    cost_usd: usd,
    cost_known: known,
    refused,
    by_url: byUrl,
    fate: tally.lines.ai + tally.lines.mixed > 0 ? await fateOfCommit(projectDir, git, tally) : null,
  };
}

export function usageJson(cost: ConversationCost): ConversationUsageJson {
  return {
    usage: cost.usage,
    reason: cost.reason,
    turns: cost.turns,
    requests: cost.requests,
    tokens: tokenCounts(cost.tokens),
    cost_usd: cost.usd,
    cost_known: cost.cost_known,
    unpriced: cost.models
      .filter((model) => model.unpriced > 0)
      .map(({ model, unpriced, reasons }) => ({ model, requests: unpriced, reasons })),
    refused: cost.refused,
  };
}

/** The commit's AI lines followed to the tip of the default branch when the commit is on it, else to HEAD when it is there. */
async function fateOfCommit(projectDir: string, git: GitOptions, tally: CommitLines): Promise<CommitCost['fate']> {
  const branch = await defaultBranch(git);
  const candidates: Array<{ name: string; ref: string }> = [
    ...(branch === undefined ? [] : [{ name: shortRef(branch).replace(/^origin\//, ''), ref: branch }]),
    { name: 'HEAD', ref: 'HEAD' },
  ];
  for (const candidate of candidates) {
    const tip = await commitId(candidate.ref, git);
    if (tip === undefined || !(await isAncestor(tally.commit, tip, git))) continue;
    const revisions = [tip, ...tally.parents.map((parent) => `^${parent}`)];
    const fate = await cachedDerived(projectDir, ['commit-fate', tally.commit, tip, ledgersStamp(projectDir)], async () => {
      const ledgers = await LedgerLines.read(projectDir);
      const found = await lineFates({
        git,
        revisions,
        scope: new Set([tally.commit]),
        ledgerOf: (commit) => (commit === tally.commit ? tally.ledger : ledgers.ledgersOf([commit]).get(commit)),
      });
      const total = zeroFate();
      for (const { fate } of found.get(tally.commit)?.values() ?? []) addFate(total, fate);
      return total;
    });
    return { ...fate, rework: reworkOf(fate), to: candidate.name };
  }
  return null;
}

async function isAncestor(commit: string, tip: string, git: GitOptions): Promise<boolean> {
  if (commit === tip) return true;
  return runGit(['merge-base', '--is-ancestor', commit, tip], git).then(
    () => true,
    () => false,
  );
}
