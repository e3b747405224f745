// The shape of the cost figures `tracer stats --cost --json` prints (and the
// Markdown and text are made from), and how a group of conversations adds up.
import type { UsageTokens } from '../core/transcript.js';
import type { TokenCounts } from '../viewer/data-source.js';
import { addTokens, zeroTotals } from '../transcript/usage.js';
import { DELETERS, type Deleter } from '../attribution/line-fates.js';
import type { UnpricedReason } from './prices.js';
import { addRefused } from './refusals.js';

/** Tokens as the JSON names them (the viewer's shape). */
export type { TokenCounts };

export function tokenCounts(tokens: UsageTokens): TokenCounts {
  return {
    input: tokens.input,
    output: tokens.output,
    cache_write: tokens.cacheWrite,
    cache_read: tokens.cacheRead,
    reasoning: tokens.reasoning ?? 0,
    cache_write_1h: tokens.cacheWrite1h ?? 0,
  };
}

export const totalTokens = (tokens: UsageTokens) => tokens.input + tokens.output + tokens.cacheWrite + tokens.cacheRead;

/** One conversation: its usage and cost, and what its edits became. */
export interface ConversationOutcome {
  conversation_id: string;
  /** The URL the ledgers name it by; null for one no ledger names. */
  url: string | null;
  agent: string | null;
  models: string[];
  usage: 'known' | 'unknown' | 'missing';
  reason: string | null;
  turns: number;
  requests: number;
  tokens: UsageTokens;
  cost_usd: number | null;
  cost_known: boolean;
  /** The models some of whose requests could not be priced, and why. */
  unpriced: Array<{ model: string; requests: number; reasons: UnpricedReason[] }>;
  refused: Record<string, number>;
  /** Lines its edits wrote (traces). */
  written: number;
  first_ts: string | null;
  last_ts: string | null;
  /** Its AI lines in the range's commits (ledgers). */
  landed: number;
  /** Its AI lines at the tip of the default branch (blame); null when there is no such branch. */
  at_tip: number | null;
  /** Its landed lines a person or another agent deleted later (up to where they are followed: line-fates.ts). */
  rework: number;
  deleted: Record<Deleter, number>;
}

export interface CostGroup {
  key: string;
  conversations: number;
  /** Conversations whose usage is known / unknown (the agent writes none) / missing (no transcript here). */
  usage: { known: number; unknown: number; missing: number };
  requests: number;
  tokens: UsageTokens;
  /** Dollars of everything that could be priced. */
  cost_usd: number | null;
  /** Every conversation's usage known, every request priced and no usage record refused. */
  cost_known: boolean;
  /** Usage records refused (code → count), each conversation's once: never counted. */
  refused: Record<string, number>;
  written: number;
  landed: number;
  at_tip: number | null;
  rework: number;
  deleted: Record<Deleter, number>;
  /** Over the conversations whose cost is known: their cost over their landed lines (null when they landed none). */
  cost_per_landed_line_usd: number | null;
}

export interface CostSection extends CostGroup {
  /** The price table (and overrides) every dollar figure was computed with. */
  prices: string;
  /** Where `at_tip` counts: the default branch (when the range is on it) or the range's last commit (its short id); null with no commit. */
  tip: string | null;
  /** Landed AI lines followed through the range's first-parent history (the base of `rework`). */
  followed: number;
  /** Per agent, model or author (null for `--by file`). */
  by: CostGroup[] | null;
  /** Conversations of the range's time span that reached no commit. */
  unlanded: CostGroup & { list: ConversationOutcome[] };
  by_conversation: ConversationOutcome[];
}

export function costGroup(key: string, parts: readonly ConversationOutcome[]): CostGroup {
  const tokens = zeroTotals();
  const usage = { known: 0, unknown: 0, missing: 0 };
  const deleted: Record<Deleter, number> = { person: 0, other_agent: 0, same_conversation: 0, unknown: 0 };
  let usd = 0;
  let priced = false;
  let complete = true;
  let requests = 0;
  let written = 0;
  let landed = 0;
  let atTip: number | null = 0;
  let rework = 0;
  let knownUsd = 0;
  let knownLanded = 0;
  const ids = new Set<string>();
  const refused: Record<string, number> = {};
  for (const part of parts) {
    // A conversation split over groups (by author) or parts is refused once in each group that holds it.
    if (!ids.has(part.conversation_id)) addRefused(refused, part.refused);
    ids.add(part.conversation_id);
    usage[part.usage] += 1;
    addTokens(tokens, part.tokens);
    requests += part.requests;
    if (part.cost_usd !== null) {
      usd += part.cost_usd;
      priced = true;
    }
    complete &&= part.cost_known;
    if (part.cost_known && part.cost_usd !== null) {
      knownUsd += part.cost_usd;
      knownLanded += part.landed;
    }
    written += part.written;
    landed += part.landed;
    atTip = atTip === null || part.at_tip === null ? (part.url === null ? atTip : null) : atTip + part.at_tip;
    rework += part.rework;
    for (const who of DELETERS) deleted[who] += part.deleted[who];
  }
  const cost = priced ? usd : null;
  return {
    key,
    conversations: ids.size,
    usage,
    requests,
    tokens,
    cost_usd: cost,
    cost_known: parts.length > 0 && complete,
    refused,
    written,
    landed,
    at_tip: atTip,
    rework,
    deleted,
    cost_per_landed_line_usd: knownLanded > 0 ? knownUsd / knownLanded : null,
  };
}
