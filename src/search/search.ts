// `tracer search` and the MCP server's `search` tool: a query read by the one
// parser (query.ts), run against the local index (local-index.ts) after it is
// brought level with the store, ranked by BM25 over the columns of each
// conversation's row. The best-matching fragment is the snippet, its matches
// marked «like this».
import type Database from 'better-sqlite3';
import { parseQuery, toFts5 } from './query.js';
import { isCorrupt, syncIndex, type IndexOptions, type SyncReport } from './local-index.js';
import { sessionPath } from './links.js';

export const SEARCH_LIMIT_MAX = 200;
export const MARK_OPEN = '«';
export const MARK_CLOSE = '»';
/** Column weights, in the table's order: prompts, assistant, files, summary, commits. */
const WEIGHTS = [4, 1, 2, 3, 3];

export interface SearchFilters {
  agent?: string;
  /** ISO times: conversations active at some point within [since, until]. */
  since?: string;
  until?: string;
  /** Matches the name or email of the author of a commit the conversation led to (case-insensitive, a part is enough). */
  author?: string;
  limit?: number;
}

export interface SearchHit {
  conversation_id: string;
  agent: string | null;
  model: string | null;
  /** The conversation's last recorded event (first, when only that is known). */
  ts: string | null;
  first_ts: string | null;
  snippet: string;
  /** Path of the conversation's page in the viewer (`tracer view` serves it). */
  url: string;
  score: number;
  commits: string[];
}

export interface SearchResult {
  hits: SearchHit[];
  index: SyncReport;
}

export async function searchProject(
  options: IndexOptions & { projectId: string; query: string; filters?: SearchFilters; reset?: boolean },
): Promise<SearchResult> {
  // The query is read before anything is opened: a bad one costs nothing.
  const match = toFts5(parseQuery(options.query));
  const attempt = async (reset: boolean): Promise<SearchResult> => {
    const { db, report } = await syncIndex({ ...options, reset });
    try {
      return { hits: runQuery(db, match, options.projectId, options.filters ?? {}), index: report };
    } finally {
      db.close();
    }
  };
  try {
    return await attempt(options.reset === true);
  } catch (error) {
    // A damaged page the query met: built again from the store, and asked once more.
    if (!isCorrupt(error) || options.reset) throw error;
    return attempt(true);
  }
}

export function runQuery(db: Database.Database, match: string, projectId: string, filters: SearchFilters): SearchHit[] {
  const where = ['docs MATCH @match'];
  const params: Record<string, unknown> = { match, limit: Math.max(1, Math.min(filters.limit ?? 20, SEARCH_LIMIT_MAX)) };
  if (filters.agent !== undefined) {
    where.push('coalesce(c.agent, c.transcript_agent) = @agent');
    params.agent = filters.agent;
  }
  if (filters.since !== undefined) {
    where.push('coalesce(c.last_ts, c.first_ts) >= @since');
    params.since = filters.since;
  }
  if (filters.until !== undefined) {
    where.push('coalesce(c.first_ts, c.last_ts) <= @until');
    params.until = filters.until;
  }
  if (filters.author !== undefined) {
    where.push(
      'EXISTS (SELECT 1 FROM conv_commits l JOIN commits m ON m.sha = l.sha WHERE l.conv = c.id AND instr(lower(m.author), lower(@author)) > 0)',
    );
    params.author = filters.author;
  }
  const rows = db
    .prepare(
      // The trace rows' agent and model, else what the transcript names (a conversation that edited no file has no
      // trace row that names them).
      `SELECT c.id, coalesce(c.agent, c.transcript_agent) AS agent, coalesce(c.model, c.transcript_model) AS model, c.first_ts, c.last_ts,
              snippet(docs, -1, '${MARK_OPEN}', '${MARK_CLOSE}', '…', 24) AS snippet,
              bm25(docs, ${WEIGHTS.join(', ')}) AS score
         FROM docs JOIN conv c ON c.n = docs.rowid
        WHERE ${where.join(' AND ')}
        ORDER BY score
        LIMIT @limit`,
    )
    .all(params) as {
    id: string;
    agent: string | null;
    model: string | null;
    first_ts: string | null;
    last_ts: string | null;
    snippet: string;
    score: number;
  }[];
  const commitsOf = db.prepare('SELECT sha FROM conv_commits WHERE conv = ? ORDER BY sha').pluck();
  return rows.map((row) => ({
    conversation_id: row.id,
    agent: row.agent,
    model: row.model,
    ts: row.last_ts ?? row.first_ts,
    first_ts: row.first_ts,
    snippet: row.snippet.replace(/\s+/g, ' ').trim(),
    url: sessionPath(projectId, row.id),
    // bm25 is lower for better matches; shown as a positive score, higher is better (six significant digits: in a
    // store of a few conversations every score is near zero, and rounding to a fixed place made them all 0).
    score: Number((-row.score).toPrecision(6)),
    commits: commitsOf.all(row.id) as string[],
  }));
}
