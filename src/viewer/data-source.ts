// Everything the viewer's pages show comes through this interface, as plain
// JSON: the local implementation reads $TRACER_HOME (local/store-source.ts),
// the trace service's reads its database (src/server/team/data-source.ts) to
// serve the same pages to a team under /ui/. Missing things throw TracerError (`unknown_project`,
// `unknown_session`, `unknown_commit`, `path_outside_repository`, ...), which
// the server turns into 404 or 400.
import type { BlameResult } from './blame-source.js';

export interface ViewerDataSource {
  projects(): Promise<ProjectSummary[]>;
  projectStats(projectId: string): Promise<ProjectStats>;
  facets(projectId: string): Promise<Facets>;
  sessions(projectId: string, query: ListQuery): Promise<Page<SessionRow>>;
  commits(projectId: string, query: ListQuery): Promise<Page<CommitRow>>;
  session(projectId: string, conversationId: string): Promise<SessionDetail>;
  /** One page of a transcript from `cursor` (opaque, from the previous page; undefined for the start). */
  transcript(projectId: string, conversationId: string, cursor: string | undefined, limit: number): Promise<TranscriptPage>;
  commit(projectId: string, sha: string): Promise<CommitDetail>;
  blame(projectId: string, path: string, rev: string | undefined): Promise<BlameResult>;
  /** One session's tokens and cost, turn by turn. */
  usage(projectId: string, conversationId: string): Promise<SessionUsage>;
  /** Attributed lines over time, by agent, model and person (the team view; absent locally). */
  share?(projectId: string): Promise<ShareBreakdown>;
  /** Tokens and cost over time, by agent, model and person, with landed against written lines (the team view; absent locally). */
  cost?(projectId: string): Promise<CostBreakdown>;
  /** How far the pages' figures are behind what was pushed (the team view; absent locally, where they never are). */
  progress?(projectId: string): Promise<CatchUpProgress>;
  /** Full-text search over what the project holds (the team view, issue 32); `invalid_query` when the query cannot be read. */
  search?(projectId: string, query: string, limit: number): Promise<SearchResults>;
}

/** One document that matched: a conversation (its transcript or its summary) or a commit (its subject). */
export interface SearchHit {
  kind: 'transcript' | 'summary' | 'commit';
  conversation_id: string | null;
  commit: string | null;
  agent: string | null;
  model: string | null;
  /** The conversation's newest time, or the commit's. */
  ts: string | null;
  /** Text around the match, on one line. */
  snippet: string;
  /** The matched words in `snippet`: [start, end) in UTF-16 code units. */
  marks: Array<[number, number]>;
  /** The page of the conversation or commit. */
  url: string;
}

export interface SearchResults {
  hits: SearchHit[];
  /** Transcripts, summaries and commits pushed but not in the index yet: a search finds them once they are. */
  pending: number;
  /** The token's role reads no transcripts or summaries: only commit subjects were searched. */
  content_hidden: boolean;
}

/** The team view's tables catching up with a push: `folded` of `total` rows taken in. */
export interface CatchUpProgress {
  catching_up: boolean;
  folded: number;
  total: number;
}

/** Attributed lines of one group (a day, an agent, a model, a person). */
export interface ShareRow extends LineCounts {
  key: string;
}

export interface ShareBreakdown {
  /** By commit day (YYYY-MM-DD), oldest first. */
  by_day: ShareRow[];
  /** Lines agents wrote (ai and mixed), by agent and by model; most lines first. */
  by_agent: ShareRow[];
  by_model: ShareRow[];
  /** By person: the ledger's author, else the name of the token that pushed it. */
  by_person: ShareRow[];
}

/** Token counts by kind, as every figure of tracer names them. */
export interface TokenCounts {
  /** Uncached input. */
  input: number;
  /** Output, reasoning included. */
  output: number;
  cache_write: number;
  cache_read: number;
  /** Of output. */
  reasoning: number;
  /** Of cache_write: the writes kept an hour. */
  cache_write_1h: number;
}

export interface TurnUsage {
  /** 0: before the person's first prompt. */
  turn: number;
  /** The time of its first request, when the agent wrote it. */
  ts: string | null;
  requests: number;
  models: string[];
  tokens: TokenCounts;
  /** Dollars of its priced requests; null when none could be priced. */
  cost_usd: number | null;
  cost_known: boolean;
}

/** A session's tokens and cost (docs/attribution.md says how each is read and priced). */
export interface SessionUsage {
  /** `unknown`: the agent writes no token counts; `missing`: no transcript of it is here. */
  usage: 'known' | 'unknown' | 'missing';
  reason: string | null;
  source: 'transcript' | 'hook_payloads' | null;
  /** The price table every dollar figure comes from. */
  prices: string;
  turns: TurnUsage[];
  requests: number;
  tokens: TokenCounts;
  cost_usd: number | null;
  cost_known: boolean;
  /** Usage the transcript holds that was refused, by code: never counted. */
  refused: Record<string, number>;
  /** Lines the session's edits wrote (its traces). */
  written: number | null;
}

/** Tokens, cost and lines of one group (a day, an agent, a model, a person). */
export interface CostRow {
  key: string;
  conversations: number;
  requests: number;
  tokens: TokenCounts;
  /** Dollars of the priced requests; null when none was priced. */
  cost_usd: number | null;
  /** Requests counted whose cost is unknown (a model the table does not know, ...). */
  unpriced_requests: number;
  /** Lines the agents' edits wrote. */
  written: number;
  /** AI lines that landed in commits. */
  landed: number;
}

export interface CostBreakdown {
  /** The price table (or tables) the figures were computed with. */
  prices: string[];
  /** Transcripts pushed but not read yet: their tokens come in once they are. */
  pending: number;
  totals: CostRow;
  /** By day (YYYY-MM-DD, the request's), oldest first. */
  by_day: CostRow[];
  by_agent: CostRow[];
  by_model: CostRow[];
  by_person: CostRow[];
}

export interface ProjectSummary {
  id: string;
  /** The repository folder's name, or the id when no working tree is known. */
  name: string;
  repo_path: string | null;
  /** Newest mtime of the project's files: cheap, exact figures come from projectStats. */
  last_activity: string | null;
}

export interface ProjectStats {
  sessions: number;
  commits: number;
  traces: number;
  /** Share of attributed added lines written by an agent, 0..1; null when no commit has a ledger. */
  ai_share: number | null;
  last_activity: string | null;
}

export interface Facets {
  agents: string[];
  models: string[];
}

export interface ListQuery {
  agent?: string;
  model?: string;
  /** Inclusive dates or timestamps (ISO), compared with the row's times. */
  from?: string;
  to?: string;
  q?: string;
  offset?: number;
  limit?: number;
}

export interface Page<T> {
  total: number;
  offset: number;
  items: T[];
}

export interface SessionRow {
  conversation_id: string;
  agent: string;
  models: string[];
  first_ts: string;
  last_ts: string;
  events: number;
  files: string[];
  files_total: number;
  summary: string | null;
  has_transcript: boolean;
  /** Who pushed the session (the team view: the token's name); absent locally. */
  person?: string | null;
}

export interface LineCounts {
  ai: number;
  human: number;
  mixed: number;
}

export interface CommitRow {
  sha: string;
  ts: string | null;
  subject: string | null;
  author: string | null;
  lines: LineCounts;
  files: number;
  agents: string[];
  models: string[];
}

export interface TraceEvent {
  id: string | null;
  ts: string;
  event: string;
  tool: string | null;
  model: string | null;
  turn_id: string | null;
  files: Array<{ path: string; lines: number }>;
}

export interface SessionDetail extends SessionRow {
  conversation_url: string | null;
  timeline: TraceEvent[];
  timeline_total: number;
  commits: Array<{ sha: string; ts: string | null; subject: string | null }>;
  transcript_bytes: number | null;
  /** The team view (issue 31): when its transcript was forgotten or expired, and by whom. */
  forgotten?: { reason: 'forget' | 'retention'; ts: string; by: string } | null;
  /** The team view: the signed-in token's role shows no transcripts or summaries (`push`). */
  transcript_hidden?: boolean;
  /** The team view: where an admin confirms forgetting this conversation. */
  forget_url?: string | null;
}

export interface DiffLine {
  op: '+' | '-' | ' ' | '@';
  text: string;
}

/** One readable unit of a transcript, whatever the agent's own format. */
export type TranscriptEntry = { line: number; ts?: string } & (
  | { kind: 'message'; role: 'user' | 'assistant' | 'system'; text: string; model?: string; truncated?: boolean }
  | { kind: 'thinking'; text: string; truncated?: boolean }
  | { kind: 'tool_call'; id?: string; name: string; input: string; file?: string; diff?: DiffLine[]; truncated?: boolean }
  | { kind: 'tool_result'; id?: string; text: string; error?: boolean; truncated?: boolean }
  | { kind: 'meta'; text: string }
);

export interface TranscriptPage {
  entries: TranscriptEntry[];
  /** Pass back for the next page; null at the end. */
  next: string | null;
  /** Bytes read so far and in all, for a progress hint. */
  position: number;
  size: number;
  /** Lines that were not JSON (a torn last line), skipped. */
  skipped: number;
}

export interface RangeByContributor {
  start_line: number;
  end_line: number;
}

export interface CommitConversation {
  type: 'ai' | 'human' | 'mixed';
  url: string | null;
  agent: string | null;
  conversation_id: string | null;
  model_id: string | null;
  summary: string | null;
  ranges: RangeByContributor[];
}

export interface CommitFile {
  path: string;
  type: 'ai' | 'human' | 'mixed' | null;
  conversations: CommitConversation[];
  /** Lines reconcile re-attached by content hash (the branch's commits were gone), as the ledger's `metadata["dev.tracer"].recovered` lists them. */
  recovered: RangeByContributor[];
}

export interface DiffFile {
  path: string;
  old_path: string | null;
  binary: boolean;
  truncated: boolean;
  hunks: Array<{
    header: string;
    lines: Array<{
      op: '+' | '-' | ' ';
      old: number | null;
      new: number | null;
      text: string;
      ai: string | null;
      /** Present, true, on an agent's line that reconcile re-attached by content hash. */
      recovered?: true;
    }>;
  }>;
}

export interface CommitDetail {
  sha: string;
  ts: string | null;
  subject: string | null;
  body: string | null;
  author: string | null;
  parents: string[];
  lines: LineCounts;
  has_ledger: boolean;
  files: CommitFile[];
  sessions: Array<{ conversation_id: string; agent: string | null; summary: string | null }>;
  diff: DiffFile[] | null;
  diff_truncated: boolean;
}
