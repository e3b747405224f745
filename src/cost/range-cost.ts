// `tracer stats --cost`: what the agents behind a range of commits cost and
// what they delivered. The conversations behind the range are those its
// ledgers name for AI lines; each counts whole (every request of its freshest
// snapshot), once, however many commits hold its lines. Beside their tokens and
// cost: the lines their edits wrote (traces), the AI lines that landed in the
// range's commits (ledgers), what became of those lines afterwards, followed to
// the tip of the default branch or the range's end (line-fates.ts: rework is
// what a person or another agent deleted; the rest is still there), and the
// conversations of the range's time span that reached no commit at all.
import { join } from 'node:path';
import { agentOfUrl, type ConversationView } from '../attribution/ledger-view.js';
import { LedgerLines } from '../attribution/ledger-lines.js';
import { addFate, lineFates, reworkOf, zeroFate, type LineFate } from '../attribution/line-fates.js';
import { commitId, defaultBranchTip, shortRef, type GitOptions } from '../attribution/git-read.js';
import type { RangeTallies } from '../attribution/stats.js';
import { conversationUrl } from '../capture/hook/summary.js';
import { runGit } from '../capture/ledger/git-exec.js';
import { modelsDevId } from '../core/model-id.js';
import { parseConversationUrl } from '../viewer/local/ledger-read.js';
import type { FormatContext } from '../transcript/agents.js';
import { addTokens, zeroTotals } from '../transcript/usage.js';
import { conversationCosts, type ConversationCost } from './conversation-cost.js';
import { refusedCount } from './refusals.js';
import { cachedDerived, fileStamp, ledgersStamp, type CacheShelf } from './derived-cache.js';
import { PROJECT_STATE_FILES } from '../store/home.js';
import type { PriceTable } from './prices.js';
import { costGroup, type ConversationOutcome, type CostGroup, type CostSection } from './cost-section.js';
import { traceSummary, type ConversationTraces } from './trace-summary.js';

export interface RangeCostQuery {
  projectDir: string;
  git: GitOptions;
  context: FormatContext;
  prices: PriceTable;
  range: RangeTallies;
  by: 'agent' | 'model' | 'author' | 'file';
  onRead?: (count: number) => void;
}

interface Behind {
  url: string;
  id: string;
  agent: string | null;
  landed: number;
  byAuthor: Map<string, number>;
  byModel: Map<string, number>;
}

/** The last figures, kept whole: a second run over the same commits and files reads them back. */
const SECTIONS: CacheShelf = { file: join(PROJECT_STATE_FILES.cache, 'range-cost.json'), kept: 2 };
/**
 * The section's shape: a new one when the figures are computed otherwise (2: by model, written per model and no $0
 * for no priced request; 3: refused usage records counted in every group, and their cost not known whole).
 */
const SECTION_VERSION = 3;

export async function rangeCost(query: RangeCostQuery): Promise<CostSection> {
  const { projectDir, range } = query;
  const tip = await tipOf(range, query.git);
  // Everything the figures come from: the commits and the tip (git), the project's files (each stamp changes with
  // every write), the price table and the breakdown. Snapshots need no stamp: their names are their bytes.
  const inputs = [
    'range-cost',
    SECTION_VERSION,
    range.tallies.map((tally) => tally.commit),
    tip ? [tip.commit, tip.name] : null,
    ledgersStamp(projectDir),
    ...['traces.jsonl', 'conversations.jsonl', join('conversations', '_index.json')].map((file) => fileStamp(join(projectDir, file))),
    query.prices.fingerprint,
    query.by,
  ];
  return cachedDerived(projectDir, inputs, () => computeRangeCost(query, tip), SECTIONS);
}

async function computeRangeCost(query: RangeCostQuery, tip: Tip | undefined): Promise<CostSection> {
  const { projectDir, git, range } = query;
  const behind = conversationsBehind(range);
  const traces = await traceSummary(projectDir);
  const unlandedIds = await unlandedConversations(range, traces, range.urls ?? new Set(), git);
  const wanted = new Map<string, ConversationTraces | undefined>();
  for (const conversation of behind.values()) wanted.set(conversation.id, traces.get(conversation.id));
  for (const id of unlandedIds) wanted.set(id, traces.get(id));
  // Reading transcripts is the workers' job and following lines is git's: both go on at once.
  const [costs, fates] = await Promise.all([
    conversationCosts({
      projectDir,
      context: query.context,
      prices: query.prices,
      conversations: wanted,
      ...(query.onRead ? { onRead: query.onRead } : {}),
    }),
    followLines(projectDir, range, git, tip),
  ]);
  const conversations: ConversationOutcome[] = [];
  for (const conversation of behind.values()) {
    const cost = costs.get(conversation.id)!;
    const fate = fates[conversation.url] ?? zeroFate();
    conversations.push({
      ...outcomeOf(cost, traces.get(conversation.id), conversation.url),
      landed: conversation.landed,
      at_tip: tip ? fate.alive : null,
      rework: reworkOf(fate),
      deleted: fate.deleted,
    });
  }
  conversations.sort(
    (a, b) => (b.cost_usd ?? -1) - (a.cost_usd ?? -1) || b.landed - a.landed || (a.conversation_id < b.conversation_id ? -1 : 1),
  );
  const unlanded = unlandedIds.map((id) => outcomeOf(costs.get(id)!, traces.get(id), null));
  const total = costGroup('all', conversations);
  return {
    prices: query.prices.version,
    tip: tip?.name ?? null,
    ...total,
    followed: conversations.reduce((sum, conversation) => sum + (fates[conversation.url!]?.added ?? 0), 0),
    by: query.by === 'file' ? null : breakdown(query.by, behind, conversations, costs, traces),
    unlanded: { ...costGroup('unlanded', unlanded), list: unlanded },
    by_conversation: conversations,
  };
}

/** Every landed AI line of the range followed to the tip (or the range's end), summed per conversation URL; cached. */
async function followLines(
  projectDir: string,
  range: RangeTallies,
  git: GitOptions,
  tip: Tip | undefined,
): Promise<Record<string, LineFate>> {
  const commits = range.tallies.map((tally) => tally.commit);
  return cachedDerived(projectDir, ['fates', commits, tip?.commit ?? null, ledgersStamp(projectDir)], async () => {
    // The commits after the range (to the tip) are read from the ledgers only here, when the walk is not cached.
    const ledgers = await LedgerLines.read(projectDir);
    const inRange = new Map(range.tallies.map((tally) => [tally.commit, tally.ledger]));
    const ledgerOf = (commit: string) => inRange.get(commit) ?? ledgers.ledgersOf([commit]).get(commit);
    const found = tip ? await lineFates({ git, revisions: tip.revisions, scope: new Set(commits), ledgerOf }) : new Map();
    // Kept per conversation URL: what the figures below need, small enough to cache.
    const byUrl: Record<string, LineFate> = {};
    for (const byConversation of found.values()) for (const [url, { fate }] of byConversation) addFate((byUrl[url] ??= zeroFate()), fate);
    return byUrl;
  });
}

/** The conversations whose AI lines the range's ledgers hold, with those lines per author and per model. */
function conversationsBehind(range: RangeTallies): Map<string, Behind> {
  const behind = new Map<string, Behind>();
  for (const tally of range.tallies)
    for (const { conversation, lines } of tally.conversations) {
      const parsed = conversation.url === null ? undefined : parseConversationUrl(conversation.url);
      if (!parsed || conversation.url === null) continue;
      let entry = behind.get(conversation.url);
      if (!entry) {
        entry = {
          url: conversation.url,
          id: parsed.conversationId,
          agent: agentOfUrl(conversation.url),
          landed: 0,
          byAuthor: new Map(),
          byModel: new Map(),
        };
        behind.set(conversation.url, entry);
      }
      entry.landed += lines;
      const author = tally.author || 'unknown';
      entry.byAuthor.set(author, (entry.byAuthor.get(author) ?? 0) + lines);
      const model = modelKey(conversation);
      entry.byModel.set(model, (entry.byModel.get(model) ?? 0) + lines);
    }
  return behind;
}

function modelKey(conversation: ConversationView): string {
  return conversation.model_id === null ? 'unknown' : modelsDevId(conversation.model_id);
}

function outcomeOf(cost: ConversationCost, traces: ConversationTraces | undefined, url: string | null): ConversationOutcome {
  return {
    conversation_id: cost.conversation_id,
    url,
    agent: cost.agent ?? (url === null ? null : agentOfUrl(url)),
    models: cost.models.map((model) => model.model).filter((model) => model !== ''),
    usage: cost.usage,
    reason: cost.reason,
    turns: cost.turns,
    requests: cost.requests,
    tokens: cost.tokens,
    cost_usd: cost.usd,
    cost_known: cost.cost_known,
    unpriced: cost.models
      .filter((model) => model.unpriced > 0)
      .map(({ model, unpriced, reasons }) => ({ model, requests: unpriced, reasons })),
    refused: cost.refused,
    written: traces?.written ?? 0,
    first_ts: traces?.first_ts ?? null,
    last_ts: traces?.last_ts ?? null,
    landed: 0,
    at_tip: null,
    rework: 0,
    deleted: zeroFate().deleted,
  };
}

/** Per agent, per model (tokens and cost from each request's model) or per author (a conversation's cost split by its landed lines). */
function breakdown(
  by: 'agent' | 'model' | 'author',
  behind: Map<string, Behind>,
  conversations: ConversationOutcome[],
  costs: Map<string, ConversationCost>,
  traces: Map<string, ConversationTraces>,
): CostGroup[] {
  const groups = new Map<string, ConversationOutcome[]>();
  const put = (key: string, part: ConversationOutcome) => {
    const parts = groups.get(key);
    if (parts) parts.push(part);
    else groups.set(key, [part]);
  };
  for (const conversation of conversations) {
    const entry = behind.get(conversation.url!)!;
    if (by === 'agent') put(conversation.agent ?? 'unknown', conversation);
    else if (by === 'author') {
      for (const [author, lines] of entry.byAuthor) put(author, scaled(conversation, lines / Math.max(1, entry.landed), lines));
    } else {
      // Tokens and cost by the model each request names; written lines by the model each trace names;
      // landed lines by the model the ledger names.
      const cost = costs.get(conversation.conversation_id)!;
      const written = writtenByModel(traces.get(conversation.conversation_id));
      const keys = new Set([...cost.models.map((model) => modelGroup(model.model)), ...written.keys(), ...entry.byModel.keys()]);
      for (const key of keys) {
        const models = cost.models.filter((model) => modelGroup(model.model) === key);
        put(key, {
          ...conversation,
          ...modelCost(cost, models),
          landed: entry.byModel.get(key) ?? 0,
          written: written.get(key) ?? 0,
        });
      }
    }
  }
  return [...groups]
    .map(([key, parts]) => costGroup(key, parts))
    .sort((a, b) => (b.cost_usd ?? 0) - (a.cost_usd ?? 0) || b.landed - a.landed || (a.key < b.key ? -1 : 1));
}

/** A model as the by-model groups name it: the models.dev way, `unknown` when none is named. */
const modelGroup = (model: string) => (model === '' ? 'unknown' : modelsDevId(model));

/** A conversation's written lines by model group (traces name their model bare). */
function writtenByModel(traces: ConversationTraces | undefined): Map<string, number> {
  const written = new Map<string, number>();
  for (const [model, lines] of Object.entries(traces?.written_by_model ?? {}))
    written.set(modelGroup(model), (written.get(modelGroup(model)) ?? 0) + lines);
  return written;
}

/**
 * The tokens and cost of a conversation's requests of some models. As for the
 * whole conversation, requests none of which could be priced cost unknown
 * (null), never $0: a model the price table does not know is no free model.
 */
function modelCost(
  cost: ConversationCost,
  models: readonly ConversationCost['models'][number][],
): Pick<ConversationOutcome, 'tokens' | 'requests' | 'cost_usd' | 'cost_known'> {
  const tokens = zeroTotals();
  for (const model of models) addTokens(tokens, model.tokens);
  const requests = models.reduce((sum, model) => sum + model.requests, 0);
  const unpriced = models.reduce((sum, model) => sum + model.unpriced, 0);
  // A refused record may have been of any of these models: each is then not known whole.
  const known = cost.usage === 'known';
  const nonePriced = requests > 0 && unpriced === requests;
  return {
    tokens,
    requests,
    cost_usd: known && !nonePriced ? models.reduce((sum, model) => sum + model.usd, 0) : null,
    cost_known: known && unpriced === 0 && refusedCount(cost.refused) === 0,
  };
}

/** A conversation's share: its tokens and cost times `share`, `lines` of its landed lines. */
function scaled(conversation: ConversationOutcome, share: number, lines: number): ConversationOutcome {
  const tokens = zeroTotals();
  for (const kind of Object.keys(tokens) as Array<keyof typeof tokens>) tokens[kind] = Math.round((conversation.tokens[kind] ?? 0) * share);
  return {
    ...conversation,
    tokens,
    cost_usd: conversation.cost_usd === null ? null : conversation.cost_usd * share,
    landed: lines,
    written: Math.round(conversation.written * share),
    at_tip: conversation.at_tip === null ? null : Math.round(conversation.at_tip * share),
    rework: Math.round(conversation.rework * share),
  };
}

/**
 * How far the range's AI lines are followed: to the tip of the default branch
 * when the range's last commit is in its history (its name without `origin/`,
 * so that a clone and a CI job say the same), else to the range's last commit
 * itself (a pull request not merged yet), named by its short id. The walk is
 * that tip's first-parent history from where the range starts: the range's
 * commits, then what came after them.
 */
interface Tip {
  name: string;
  commit: string;
  /** The walk's revisions for `git log --first-parent`. */
  revisions: string[];
}

async function tipOf(range: RangeTallies, git: GitOptions): Promise<Tip | undefined> {
  if (range.tallies.length === 0) return undefined;
  const last = range.revisions.at(-1) ?? 'HEAD';
  const end = await commitId(last.includes('..') ? last.slice(last.lastIndexOf('..') + 2) || 'HEAD' : last, git);
  if (end === undefined) return undefined;
  const found = await defaultBranchTip(git);
  const branch = found?.ref;
  const tip = found?.commit;
  if (tip === undefined || branch === undefined || !(await isAncestor(end, tip, git)))
    return { name: end.slice(0, 12), commit: end, revisions: range.revisions };
  const inRange = new Set(range.tallies.map((tally) => tally.commit));
  const before = new Set(range.tallies.flatMap((tally) => tally.parents.filter((parent) => !inRange.has(parent))));
  return { name: shortRef(branch).replace(/^origin\//, ''), commit: tip, revisions: [tip, ...[...before].map((parent) => `^${parent}`)] };
}

async function isAncestor(commit: string, tip: string, git: GitOptions): Promise<boolean> {
  if (commit === tip) return true;
  return runGit(['merge-base', '--is-ancestor', commit, tip], git).then(
    () => true,
    () => false,
  );
}

/**
 * Conversations whose traces fall in the range's span (from its base's commit
 * time to its newest commit's) that no ledger anywhere names: their work
 * reached no commit. Conversations still going on after the range are not
 * judged yet.
 */
async function unlandedConversations(
  range: RangeTallies,
  traces: Map<string, ConversationTraces>,
  named: Set<string>,
  git: GitOptions,
): Promise<string[]> {
  if (range.tallies.length === 0) return [];
  const newest = range.tallies[0]!.commit;
  const oldest = range.tallies.at(-1)!;
  const [end, start] = await Promise.all([
    commitTime(newest, git),
    oldest.parents[0] === undefined ? Promise.resolve('') : commitTime(oldest.parents[0], git),
  ]);
  if (end === undefined) return [];
  const ids: string[] = [];
  for (const [id, conversation] of traces) {
    if (conversation.last_ts > end || conversation.first_ts < (start ?? '')) continue;
    if (conversation.agent !== null && named.has(conversationUrl(conversation.agent, id))) continue;
    ids.push(id);
  }
  return ids.sort();
}

async function commitTime(commit: string, git: GitOptions): Promise<string | undefined> {
  const out = (await runGit(['show', '-s', '--no-show-signature', '--format=%cI', commit, '--'], git).catch(() => '')).trim();
  const parsed = Date.parse(out);
  return Number.isNaN(parsed) ? undefined : new Date(parsed).toISOString();
}
