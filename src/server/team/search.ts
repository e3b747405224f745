// The team view's search (issue 32): a query parsed once (src/search/query.ts),
// run on the project's documents (team/search-index.ts) as each backend reads
// it: FTS5 with bm25 on SQLite, the tsvector's GIN index with ts_rank on
// PostgreSQL, every term a bound parameter. Best first; a conversation's
// transcript and summary give one hit between them. Only the kinds of text the
// token's role may read are searched: a `push` token finds commit subjects only.
import type { SearchHit } from '../../viewer/data-source.js';
import { queryTerms, toFts5, type QueryNode } from '../../search/query.js';
import { searchWords, shownTerms, toLooseTsquery, toTsquery } from '../../search/tsquery.js';
import { AGENT_ID } from '../../core/agent.js';
import type { TraceStorage } from '../storage/types.js';
import { parseConversationUrl } from '../../viewer/local/ledger-read.js';
import type { DocKind } from './search-index.js';

export const SEARCH_LIMIT_DEFAULT = 20;
export const SEARCH_LIMIT_MAX = 100;
/** A snippet: FTS5's best window of this many tokens; on PostgreSQL, characters around the first match. */
const SNIPPET_TOKENS = 24;
const SNIPPET_BEFORE = 100;
const SNIPPET_CHARS = 280;
/**
 * On PostgreSQL: the newest documents the index finds for the loose query that are checked with the
 * exact one, how many at a time, and how many of the newest exact matches are ranked (each check and
 * each rank reads a document's whole tsvector).
 */
export const CANDIDATES = 5000;
const CHUNK = 400;
export const RANKED = 200;
const OPEN = '\u0002';
const CLOSE = '\u0003';

interface Found {
  id: number;
  kind: DocKind;
  key: string;
  ts: string | null;
  snippet: string;
}

export interface SearchRequest {
  projectId: number;
  tree: QueryNode;
  kinds: readonly DocKind[];
  limit: number;
  /** The team view page of a conversation and of a commit. */
  sessionUrl(conversationId: string): string;
  commitUrl(sha: string): string;
}

export async function teamSearch(storage: TraceStorage, request: SearchRequest): Promise<SearchHit[]> {
  if (request.kinds.length === 0) return [];
  // A conversation may match twice (transcript and summary): more are asked for than shown.
  const wanted = request.limit * 2;
  const found =
    storage.backend === 'sqlite' ? await sqliteSearch(storage, request, wanted) : await postgresSearch(storage, request, wanted);
  const seen = new Set<string>();
  const unique = found.filter((doc) => {
    const key = doc.kind === 'commit' ? `c:${doc.key}` : `s:${doc.key}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return describe(storage, request, unique.slice(0, request.limit));
}

async function sqliteSearch(storage: TraceStorage, request: SearchRequest, limit: number): Promise<Found[]> {
  const match = toFts5(request.tree);
  const kinds = request.kinds.map(() => '?').join(', ');
  // Ranked first, the snippets made for the few kept only (snippet() reads the document's text).
  const rows = await storage.query<Found & { score: number }>(
    `WITH top AS (
       SELECT search_fts.rowid AS id, search_fts.rank AS score FROM search_fts JOIN search_docs d ON d.id = search_fts.rowid
       WHERE search_fts MATCH ? AND d.project_id = ? AND d.kind IN (${kinds}) ORDER BY search_fts.rank LIMIT ?)
     SELECT d.id, d.kind, d.key, d.ts, top.score, snippet(search_fts, 0, char(2), char(3), '…', ${SNIPPET_TOKENS}) AS snippet
     FROM top JOIN search_fts ON search_fts.rowid = top.id JOIN search_docs d ON d.id = top.id
     WHERE search_fts MATCH ? ORDER BY top.score, d.id`,
    [match, request.projectId, ...request.kinds, limit, match],
  );
  return rows;
}

async function postgresSearch(storage: TraceStorage, request: SearchRequest, limit: number): Promise<Found[]> {
  const loose = toLooseTsquery(request.tree);
  const exact = toTsquery(request.tree);
  const kinds = request.kinds.map(() => '?').join(', ');
  const ranked = await storage.transaction(async (tx) => {
    // PostgreSQL prices @@ as a cheap operator, so it would rather read every document of the project
    // (decompressing each tsvector) than ask the GIN index. The index is made the one way in: no plain
    // scan, and the project and kind written so that no btree serves them.
    await tx.execute('SET LOCAL enable_seqscan = off');
    await tx.execute('SET LOCAL enable_indexscan = off');
    // The index alone answers the loose query (each word present, nothing taken away): no document is read.
    const candidates = await tx.query<{ id: number }>(
      `SELECT d.id FROM search_docs d WHERE d.project_id + 0 = ? AND d.kind || '' IN (${kinds}) AND d.tsv @@ ${loose.sql}
       ORDER BY d.ts DESC NULLS LAST, d.id DESC LIMIT ${CANDIDATES}`,
      [request.projectId, ...request.kinds, ...loose.params],
    );
    // Then the exact query (phrases, NOT) on them, newest first, a chunk at a time, until RANKED match:
    // each check reads the document's tsvector, so a common query reads a few hundred, not every one.
    const matched: Array<{ id: number; kind: DocKind; key: string; ts: string | null; score: number }> = [];
    for (let at = 0; at < candidates.length && matched.length < RANKED; at += CHUNK) {
      const ids = candidates.slice(at, at + CHUNK).map((row) => Number(row.id));
      matched.push(
        ...(await tx.query<{ id: number; kind: DocKind; key: string; ts: string | null; score: number }>(
          `SELECT d.id, d.kind, d.key, d.ts, ts_rank(d.tsv, ${exact.sql}) AS score FROM search_docs d
           WHERE d.id = ANY(?::bigint[]) AND d.tsv @@ ${exact.sql}`,
          [...exact.params, ids, ...exact.params],
        )),
      );
    }
    const newest = (a: { ts: string | null; id: number }, b: { ts: string | null; id: number }) =>
      (a.ts ?? '') < (b.ts ?? '') ? 1 : (a.ts ?? '') > (b.ts ?? '') ? -1 : Number(b.id) - Number(a.id);
    return matched
      .sort(newest)
      .slice(0, RANKED)
      .sort((a, b) => Number(b.score) - Number(a.score) || newest(a, b))
      .slice(0, limit);
  });
  if (ranked.length === 0) return [];
  // The window around the first place a shown term's first word is, marked here as FTS5 marks its snippets.
  const probe = probeWord(request.tree);
  const windows = await storage.query<{ id: number; text: string; start: number }>(
    `SELECT id, greatest(strpos(lower(body), ?) - ${SNIPPET_BEFORE}, 1) AS start,
       substr(body, greatest(strpos(lower(body), ?) - ${SNIPPET_BEFORE}, 1), ${SNIPPET_CHARS}) AS text
     FROM search_docs WHERE id IN (${ranked.map(() => '?').join(', ')})`,
    [probe, probe, ...ranked.map((row) => row.id)],
  );
  const byId = new Map(windows.map((row) => [Number(row.id), row]));
  return ranked.map((row) => {
    const window = byId.get(Number(row.id));
    return { ...row, id: Number(row.id), snippet: window ? markWindow(window.text, Number(window.start) > 1, request.tree) : '' };
  });
}

/** A window of text with the words the query names between OPEN and CLOSE, as FTS5's snippet() gives it. */
export function markWindow(text: string, cutBefore: boolean, tree: QueryNode): string {
  const terms = shownTerms(tree).map((term) => ({ words: searchWords(term.text).split(' ').filter(Boolean), prefix: term.prefix }));
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const term of terms)
    term.words.forEach((word, index) => (term.prefix && index === term.words.length - 1 ? prefixes.push(word) : exact.add(word)));
  // Whole words only: a window cut inside a word drops that piece.
  let body = text;
  if (cutBefore) body = `…${body.replace(/^[\p{L}\p{N}]*/u, '')}`;
  if (body.length >= SNIPPET_CHARS - 1) body = `${body.replace(/[\p{L}\p{N}]*$/u, '')}…`;
  return body.replace(/[\p{L}\p{N}]+/gu, (word) => {
    const normal = searchWords(word);
    return exact.has(normal) || prefixes.some((prefix) => normal.startsWith(prefix)) ? `${OPEN}${word}${CLOSE}` : word;
  });
}

function probeWord(tree: QueryNode): string {
  const [first] = shownTerms(tree);
  const word = /[\p{L}\p{N}]+/u.exec((first ?? queryTerms(tree)[0]!).text)?.[0] ?? '';
  return word.toLowerCase();
}

/** A snippet with OPEN/CLOSE markers as plain text and the marked ranges (UTF-16 offsets, end exclusive). */
export function splitMarks(marked: string): { snippet: string; marks: Array<[number, number]> } {
  let snippet = '';
  const marks: Array<[number, number]> = [];
  let open: number | undefined;
  for (const char of marked) {
    if (char === OPEN) open = snippet.length;
    else if (char === CLOSE) {
      if (open !== undefined && snippet.length > open) marks.push([open, snippet.length]);
      open = undefined;
    } else snippet += char;
  }
  return { snippet: snippet.replace(/\s+/g, ' '), marks: remap(snippet, marks) };
}

/** The marks again after runs of white space were made one space. */
function remap(text: string, marks: Array<[number, number]>): Array<[number, number]> {
  const offsets: number[] = new Array(text.length + 1);
  let out = 0;
  for (let at = 0; at < text.length; at += 1) {
    offsets[at] = out;
    if (!(/\s/.test(text[at]!) && at > 0 && /\s/.test(text[at - 1]!))) out += 1;
  }
  offsets[text.length] = out;
  return marks.map(([start, end]) => [offsets[start]!, offsets[end]!]);
}

/**
 * A conversation pushed without its traces (a push without --full sends only the traces a ledger
 * attributes, so a session that edited nothing has none on the service) still has an agent and a model:
 * its summary names the agent, and its transcript's usage, once read (team/usage.ts), the model.
 */
async function withoutTraces(
  storage: TraceStorage,
  projectId: number,
  conversations: readonly string[],
  sessions: Map<string, { agent: string; last_ts: string; model: string | null }>,
): Promise<void> {
  const missing = conversations.filter((id) => !sessions.get(id)?.model || !sessions.get(id)?.agent);
  if (missing.length === 0) return;
  const marks = missing.map(() => '?').join(', ');
  const [summaries, models] = await Promise.all([
    storage.query<{ conversation_id: string; body: string }>(
      `SELECT conversation_id, body FROM items WHERE project_id = ? AND family = 'summaries' AND conversation_id IN (${marks})`,
      [projectId, ...missing],
    ),
    storage.query<{ conversation_id: string; model: string }>(
      `SELECT conversation_id, MIN(model) AS model FROM view_usage WHERE project_id = ? AND conversation_id IN (${marks})
       GROUP BY conversation_id`,
      [projectId, ...missing],
    ),
  ]);
  const agentOf = new Map<string, string>();
  for (const row of summaries) {
    const agent = summaryAgent(row.body);
    if (agent) agentOf.set(row.conversation_id, agent);
  }
  const modelOf = new Map(models.map((row) => [row.conversation_id, row.model]));
  for (const id of missing) {
    const known = sessions.get(id);
    sessions.set(id, {
      agent: known?.agent || agentOf.get(id) || '',
      last_ts: known?.last_ts ?? '',
      model: known?.model ?? modelOf.get(id) ?? null,
    });
  }
}

/** The agent a summary row names: its `agent`, or its conversation URL's scheme (`claude-code://session/…`; a web address names none). */
function summaryAgent(body: string): string | undefined {
  let record: { agent?: unknown; conversation_url?: unknown };
  try {
    record = JSON.parse(body) as typeof record;
  } catch {
    return undefined;
  }
  const scheme = parseConversationUrl(typeof record.conversation_url === 'string' ? record.conversation_url : undefined)?.agent;
  const agent = typeof record.agent === 'string' ? record.agent : scheme === 'http' || scheme === 'https' ? undefined : scheme;
  return agent && AGENT_ID.test(agent) ? agent : undefined;
}

/** Each document found as a hit: its conversation's agent, model and newest time, or its commit. */
async function describe(storage: TraceStorage, request: SearchRequest, found: readonly Found[]): Promise<SearchHit[]> {
  const conversations = [...new Set(found.filter((doc) => doc.kind !== 'commit').map((doc) => doc.key))];
  const sessions = new Map<string, { agent: string; last_ts: string; model: string | null }>();
  if (conversations.length > 0) {
    const marks = conversations.map(() => '?').join(', ');
    const [rows, models] = await Promise.all([
      storage.query<{ conversation_id: string; agent: string; last_ts: string }>(
        `SELECT conversation_id, agent, last_ts FROM view_sessions WHERE project_id = ? AND conversation_id IN (${marks})`,
        [request.projectId, ...conversations],
      ),
      storage.query<{ conversation_id: string; model: string }>(
        `SELECT conversation_id, MIN(model) AS model FROM view_session_models WHERE project_id = ? AND conversation_id IN (${marks})
         GROUP BY conversation_id`,
        [request.projectId, ...conversations],
      ),
    ]);
    const modelOf = new Map(models.map((row) => [row.conversation_id, row.model]));
    for (const row of rows)
      sessions.set(row.conversation_id, { agent: row.agent, last_ts: row.last_ts, model: modelOf.get(row.conversation_id) ?? null });
    await withoutTraces(storage, request.projectId, conversations, sessions);
  }
  return found.map((doc): SearchHit => {
    const { snippet, marks } = splitMarks(doc.snippet);
    if (doc.kind === 'commit')
      return {
        kind: 'commit',
        conversation_id: null,
        commit: doc.key,
        agent: null,
        model: null,
        ts: doc.ts,
        snippet,
        marks,
        url: request.commitUrl(doc.key),
      };
    const session = sessions.get(doc.key);
    return {
      kind: doc.kind,
      conversation_id: doc.key,
      commit: null,
      agent: session?.agent || null,
      model: session?.model ?? null,
      ts: session?.last_ts || doc.ts,
      snippet,
      marks,
      url: request.sessionUrl(doc.key),
    };
  });
}
