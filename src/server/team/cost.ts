// The team view's cost pages, answered from SQL: tokens and cost from
// view_usage (team/usage.ts), the lines the agents' edits wrote from
// view_written, the AI lines that landed from the commits' parts. Each is one
// GROUP BY per breakdown over indexed rows; rows of different tables meet in
// the page by their key (a day, an agent, a model named the models.dev way, a
// person). A commit whose lines a newer commit of another history holds again
// (a squash or cherry-pick made with the hooks on) lands them once: there.
import { modelsDevId } from '../../core/model-id.js';
import type { CostBreakdown, CostRow, SessionUsage, TokenCounts, TurnUsage } from '../../viewer/data-source.js';
import type { PriceTable } from '../../cost/prices.js';
import { refusedCount } from '../../cost/refusals.js';
import type { TraceStorage } from '../storage/types.js';
import { usagePending } from './usage.js';

const NOT_REPLACED = 'NOT EXISTS (SELECT 1 FROM view_replaced r WHERE r.project_id = c.project_id AND r.sha = c.sha)';
const SESSION = 'LEFT JOIN view_sessions s ON s.project_id = u.project_id AND s.conversation_id = u.conversation_id';
const TOKENS = `COUNT(DISTINCT u.conversation_id) AS conversations, SUM(u.requests) AS requests, SUM(u.input) AS input,
  SUM(u.output) AS output, SUM(u.cache_write) AS cache_write, SUM(u.cache_read) AS cache_read, SUM(u.reasoning) AS reasoning,
  SUM(u.cache_write_1h) AS cache_write_1h, SUM(u.cost_nusd) AS cost_nusd, SUM(u.unpriced) AS unpriced,
  SUM(CASE WHEN u.unpriced < u.requests THEN 1 ELSE 0 END) AS priced_rows`;

type Breakdown = 'day' | 'agent' | 'model' | 'person';

interface UsageSql {
  key: string | null;
  conversations: number;
  requests: number;
  input: number;
  output: number;
  cache_write: number;
  cache_read: number;
  reasoning: number;
  cache_write_1h: number;
  cost_nusd: number;
  unpriced: number;
  priced_rows: number;
}

const USAGE_KEY: Record<Breakdown, string> = {
  day: 'u.day',
  agent: "coalesce(s.agent, 'unknown')",
  model: 'u.model',
  person: "coalesce(s.person, '')",
};
const WRITTEN_KEY: Record<Breakdown, string> = {
  day: 'w.day',
  agent: "coalesce(s.agent, 'unknown')",
  model: 'w.model',
  person: "coalesce(s.person, '')",
};
const LANDED_KEY: Record<Breakdown, string> = {
  day: 'substr(c.ts, 1, 10)',
  agent: 'p.agent',
  model: 'p.model',
  person: "coalesce(c.person, '')",
};

export async function teamCost(storage: TraceStorage, projectId: number, prices: PriceTable): Promise<CostBreakdown> {
  const copied = await copiedCommits(storage, projectId);
  const [pending, versions, ...groups] = await Promise.all([
    usagePending(storage, projectId, prices),
    storage.query<{ prices: string }>('SELECT DISTINCT prices FROM view_usage_state WHERE project_id = ? ORDER BY prices', [projectId]),
    breakdown(storage, projectId, null, copied),
    breakdown(storage, projectId, 'day', copied),
    breakdown(storage, projectId, 'agent', copied),
    breakdown(storage, projectId, 'model', copied),
    breakdown(storage, projectId, 'person', copied),
  ]);
  const [totals, byDay, byAgent, byModel, byPerson] = groups as [CostRow[], CostRow[], CostRow[], CostRow[], CostRow[]];
  const mostFirst = (rows: CostRow[]) =>
    rows.sort((a, b) => (b.cost_usd ?? 0) - (a.cost_usd ?? 0) || b.landed - a.landed || a.key.localeCompare(b.key));
  return {
    prices: versions.length > 0 ? versions.map((row) => row.prices) : [prices.version],
    pending,
    totals: totals[0] ?? emptyRow('all'),
    by_day: byDay.filter((row) => row.key !== '').sort((a, b) => a.key.localeCompare(b.key)),
    by_agent: mostFirst(byAgent),
    by_model: mostFirst(byModel),
    by_person: mostFirst(byPerson),
  };
}

/** One breakdown (null: the totals): tokens and cost, written and landed lines (but those of `copied` commits), met by key. */
async function breakdown(storage: TraceStorage, projectId: number, by: Breakdown | null, copied: ReadonlySet<string>): Promise<CostRow[]> {
  const group = (key: string) => (by === null ? { select: "'all'", groupBy: '' } : { select: key, groupBy: `GROUP BY ${key}` });
  const usageKey = group(by === null ? '' : USAGE_KEY[by]);
  const writtenKey = group(by === null ? '' : WRITTEN_KEY[by]);
  const landedKey = group(by === null ? '' : LANDED_KEY[by]);
  const [usage, written, landed] = await Promise.all([
    storage.query<UsageSql>(
      `SELECT ${usageKey.select} AS key, ${TOKENS} FROM view_usage u ${SESSION} WHERE u.project_id = ? ${usageKey.groupBy}`,
      [projectId],
    ),
    storage.query<{ key: string | null; lines: number }>(
      `SELECT ${writtenKey.select} AS key, SUM(w.lines) AS lines FROM view_written w
       LEFT JOIN view_sessions s ON s.project_id = w.project_id AND s.conversation_id = w.conversation_id
       WHERE w.project_id = ? ${writtenKey.groupBy}`,
      [projectId],
    ),
    storage.query<{ key: string | null; sha: string; lines: number }>(
      `SELECT ${landedKey.select} AS key, p.sha, SUM(p.lines) AS lines FROM view_commit_parts p
       JOIN view_commits c ON c.project_id = p.project_id AND c.sha = p.sha
       WHERE p.project_id = ? AND p.kind <> 'human' AND ${NOT_REPLACED}
       GROUP BY p.sha${by === null ? '' : `, ${LANDED_KEY[by]}`}`,
      [projectId],
    ),
  ]);
  // Agents name a model bare, ledgers the models.dev way: both meet under the latter.
  const keyOf = (key: string | null) => (by === 'model' ? (key ? modelsDevId(key) : 'unknown') : (key ?? (by === null ? 'all' : '')));
  const rows = new Map<string, CostRow & { priced: boolean }>();
  const rowOf = (key: string) => {
    let row = rows.get(key);
    if (!row) rows.set(key, (row = { ...emptyRow(key), priced: false }));
    return row;
  };
  for (const entry of usage) {
    if (entry.requests === null || entry.requests === 0) continue;
    const row = rowOf(keyOf(entry.key));
    row.conversations += entry.conversations;
    row.requests += entry.requests;
    addTokens(row.tokens, entry);
    row.unpriced_requests += entry.unpriced;
    if (entry.priced_rows > 0) {
      row.priced = true;
      row.cost_usd = (row.cost_usd ?? 0) + entry.cost_nusd / 1e9;
    }
  }
  for (const entry of written) if (entry.lines) rowOf(keyOf(entry.key)).written += entry.lines;
  for (const entry of landed) if (entry.lines && !copied.has(entry.sha)) rowOf(keyOf(entry.key)).landed += entry.lines;
  return [...rows.values()].map(({ priced: _priced, ...row }) => row);
}

interface SharedTraces {
  copied: string;
  copy: string;
  shared: number;
  traces: number;
}

/**
 * Commits whose AI lines another commit holds again on another history: the
 * branch commits of a squash or a cherry-pick made with the hooks on, whose own
 * ledger attributes the same traces (claims forbid that only within one
 * history). The CLI never counts both, as a range is one history; here every
 * pushed commit is in view, so the older copy is left out. A commit is a copy's
 * source when the newer commit uses every trace it uses and does not descend
 * from it: a later commit of the same history may use the rest of a trace.
 */
export async function copiedCommits(storage: TraceStorage, projectId: number): Promise<Set<string>> {
  const pairs = await storage.query<SharedTraces>(
    `SELECT a.sha AS copied, b.sha AS copy, COUNT(*) AS shared,
       (SELECT COUNT(*) FROM view_commit_traces t WHERE t.project_id = a.project_id AND t.sha = a.sha) AS traces
     FROM view_commit_traces a
     JOIN view_commit_traces b ON b.project_id = a.project_id AND b.trace_id = a.trace_id AND b.sha <> a.sha
     WHERE a.project_id = ? GROUP BY a.project_id, a.sha, b.sha`,
    [projectId],
  );
  const candidates = pairs.filter((pair) => Number(pair.shared) === Number(pair.traces));
  if (candidates.length === 0) return new Set();
  const [commits, parents] = await Promise.all([
    storage.query<{ sha: string; ts: string; seq: number }>('SELECT sha, ts, seq FROM view_commits WHERE project_id = ?', [projectId]),
    storage.query<{ sha: string; parent: string }>('SELECT sha, parent FROM view_commit_parents WHERE project_id = ?', [projectId]),
  ]);
  const order = new Map(commits.map((commit) => [commit.sha, [commit.ts, Number(commit.seq)] as const]));
  const parentsOf = new Map<string, string[]>();
  for (const { sha, parent } of parents) parentsOf.set(sha, [...(parentsOf.get(sha) ?? []), parent]);
  // The newer by committer time, then by the order the service took them in.
  const newer = (a: string, b: string) => {
    const [x, y] = [order.get(a), order.get(b)];
    if (!x || !y) return false;
    return x[0] !== y[0] ? x[0] > y[0] : x[1] > y[1];
  };
  const copied = new Set<string>();
  for (const { copied: source, copy } of candidates) if (newer(copy, source) && !descendsFrom(copy, source, parentsOf)) copied.add(source);
  return copied;
}

/** Whether `ancestor` is in `commit`'s history, as far as the pushed ledgers name parents. */
function descendsFrom(commit: string, ancestor: string, parentsOf: ReadonlyMap<string, readonly string[]>): boolean {
  const seen = new Set<string>();
  const next = [commit];
  while (next.length > 0) {
    for (const parent of parentsOf.get(next.pop()!) ?? []) {
      if (parent === ancestor) return true;
      if (!seen.has(parent)) {
        seen.add(parent);
        next.push(parent);
      }
    }
  }
  return false;
}

const zeroTokens = (): TokenCounts => ({ input: 0, output: 0, cache_write: 0, cache_read: 0, reasoning: 0, cache_write_1h: 0 });

function emptyRow(key: string): CostRow {
  return {
    key,
    conversations: 0,
    requests: 0,
    tokens: zeroTokens(),
    cost_usd: null,
    unpriced_requests: 0,
    written: 0,
    landed: 0,
  };
}

function addTokens(into: TokenCounts, more: Pick<UsageSql, keyof TokenCounts>): void {
  for (const kind of Object.keys(into) as Array<keyof TokenCounts>) into[kind] += more[kind] ?? 0;
}

/** One session's usage, turn by turn, from view_usage and the state of its reading. */
export async function teamSessionUsage(
  storage: TraceStorage,
  projectId: number,
  conversationId: string,
  prices: PriceTable,
): Promise<SessionUsage> {
  const [[state], turns, [written]] = await Promise.all([
    storage.query<{ usage: string; reason: string | null; refused: string; prices: string; source: string | null }>(
      'SELECT usage, reason, refused, prices, source FROM view_usage_state WHERE project_id = ? AND conversation_id = ?',
      [projectId, conversationId],
    ),
    storage.query<UsageSql & { turn: number; ts: string | null; model: string }>(
      `SELECT u.turn, MIN(u.ts) AS ts, u.model AS key, u.model, ${TOKENS} FROM view_usage u ${SESSION}
       WHERE u.project_id = ? AND u.conversation_id = ? GROUP BY u.turn, u.model ORDER BY u.turn, u.model`,
      [projectId, conversationId],
    ),
    storage.query<{ lines: number | null }>('SELECT SUM(lines) AS lines FROM view_written WHERE project_id = ? AND conversation_id = ?', [
      projectId,
      conversationId,
    ]),
  ]);
  const byTurn = new Map<number, TurnUsage>();
  const totals = zeroTokens();
  let usd: number | null = null;
  let requests = 0;
  let unpriced = 0;
  for (const row of turns) {
    let turn = byTurn.get(row.turn);
    if (!turn)
      byTurn.set(
        row.turn,
        (turn = { turn: row.turn, ts: row.ts, requests: 0, models: [], tokens: zeroTokens(), cost_usd: null, cost_known: true }),
      );
    if (row.ts !== null && (turn.ts === null || row.ts < turn.ts)) turn.ts = row.ts;
    turn.requests += row.requests;
    if (row.model) turn.models.push(row.model);
    addTokens(turn.tokens, row);
    addTokens(totals, row);
    requests += row.requests;
    unpriced += row.unpriced;
    if (row.unpriced > 0) turn.cost_known = false;
    if (row.unpriced < row.requests) {
      turn.cost_usd = (turn.cost_usd ?? 0) + row.cost_nusd / 1e9;
      usd = (usd ?? 0) + row.cost_nusd / 1e9;
    }
  }
  const usage = state?.usage === 'known' || state?.usage === 'unknown' ? state.usage : 'missing';
  const refused = parseRefused(state?.refused);
  return {
    usage,
    reason: usage === 'missing' ? 'No transcript of this session was pushed, or it is not read yet.' : (state?.reason ?? null),
    source: usage === 'missing' ? null : state?.source === 'hook_payloads' ? 'hook_payloads' : 'transcript',
    prices: state?.prices ?? prices.version,
    turns: [...byTurn.values()],
    requests,
    tokens: totals,
    cost_usd: usd,
    // A refused usage record's tokens are not counted, so neither is its cost (as the local viewer says).
    cost_known: usage === 'known' && requests > 0 && unpriced === 0 && refusedCount(refused) === 0,
    refused,
    written: written?.lines ?? 0,
  };
}

function parseRefused(text: string | undefined): Record<string, number> {
  try {
    const value = JSON.parse(text ?? '{}') as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, number>) : {};
  } catch {
    return {};
  }
}
