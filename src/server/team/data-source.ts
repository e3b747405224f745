// The viewer's data source over the trace service's database, for one signed-in
// token: the same pages as `tracer view`, for every machine that pushed. A
// project id is `<org>/<project>`; a project the token does not cover is
// `unknown_project` exactly like one that does not exist (404 either way).
// Every list is one indexed SQL query over the view_* tables (team/derive.ts),
// brought up to date first unless many rows are behind (team/refresher.ts: then
// it answers from what is folded and `progress` says so); nothing reads all of a
// project's rows per request.
import { conversationUrl } from '../../capture/hook/summary.js';
import { AGENT_ID } from '../../core/agent.js';
import { ExitCode, TracerError } from '../../core/errors.js';
import type { BlameResult } from '../../viewer/blame-source.js';
import type {
  CatchUpProgress,
  CommitDetail,
  CommitRow,
  CostBreakdown,
  Facets,
  ListQuery,
  Page,
  ProjectStats,
  ProjectSummary,
  SessionDetail,
  SessionRow,
  SearchResults,
  SessionUsage,
  ShareBreakdown,
  ShareRow,
  TranscriptPage,
  ViewerDataSource,
} from '../../viewer/data-source.js';
import { emptyDetail, ledgerFiles, ledgerSessions } from '../../viewer/local/commit-detail.js';
import { agentTraceRecord } from '../../viewer/local/ledger-read.js';
import { PAGE_DEFAULT, PAGE_MAX } from '../../viewer/local/list-filter.js';
import { isObject } from '../../viewer/local/refreshing-file.js';
import { timelineEvent } from '../../viewer/local/timeline.js';
import type { PriceTable } from '../../cost/prices.js';
import { tracerHome } from '../../store/home.js';
import { tokenCovers } from '../auth.js';
import type { ProjectRef, TokenRecord, TraceStorage } from '../storage/types.js';
import { viewProgress } from './progress.js';
import { transcriptPage } from './transcript.js';
import { actorOf, recordAudit } from '../privacy/audit.js';
import { roleAllows } from '../roles.js';
import { parseQuery } from '../../search/query.js';

const TIMELINE_MAX = 1_000;
const FILES_SHOWN = 50;
const NOT_REPLACED = 'NOT EXISTS (SELECT 1 FROM view_replaced r WHERE r.project_id = c.project_id AND r.sha = c.sha)';

interface SessionSql {
  conversation_id: string;
  agent: string;
  first_ts: string;
  last_ts: string;
  events: number;
  person: string | null;
}

interface CommitSql {
  sha: string;
  ts: string;
  seq: number;
  ai: number;
  human: number;
  mixed: number;
  files: number;
  person: string | null;
  /** From the commit's link (view_commit_names), when one named it (issue 32). */
  subject: string | null;
  author_name: string | null;
}

/** A commit's subject and author name as its link names them: joined to view_commits c. */
const NAMED = 'LEFT JOIN view_commit_names n ON n.project_id = c.project_id AND n.sha = c.sha';

export class ServiceDataSource implements ViewerDataSource {
  constructor(
    private readonly storage: TraceStorage,
    private readonly token: TokenRecord,
    /** Brings a project's view tables up to date, or starts to (team/refresher.ts; shared with uploads, so one run serves both). */
    private readonly view: { ready(projectId: number): Promise<void> },
    /** Where an admin confirms forgetting a conversation (routes/ui.ts knows the mount). */
    private readonly forgetPath?: (projectId: string, conversationId: string) => string,
    /** The price table, and the background reading of the pushed transcripts' usage (team/usage.ts). */
    private readonly costing?: { prices(): Promise<PriceTable>; usage: { schedule(projectId: number): void } },
    /** Where the pages are mounted (search hits link to them), and the background indexing of what a search reads (team/search-index.ts). */
    private readonly searching?: { base: string; index: { schedule(projectId: number): void } },
  ) {}

  async search(projectId: string, text: string, limit: number): Promise<SearchResults> {
    // A query that cannot be read is refused before anything is looked up.
    const tree = parseQuery(text);
    const project = await this.project(projectId);
    const { teamSearch, SEARCH_LIMIT_MAX } = await import('./search.js');
    const { searchPending } = await import('./search-index.js');
    const pages = `${this.searching?.base ?? '/ui'}/p/${encodeURIComponent(project.org_slug)}/${encodeURIComponent(project.project_slug)}`;
    // Counted before the search: a document the background indexing writes in between is then still counted
    // as pending, never missing from the hits of an answer that says nothing is.
    const pending = await searchPending(this.storage, project.id);
    const hits = await teamSearch(this.storage, {
      projectId: project.id,
      tree,
      // A token that may not read transcripts does not search them or their summaries either (issue 31).
      kinds: this.readsContent ? ['transcript', 'summary', 'commit'] : ['commit'],
      limit: Math.min(SEARCH_LIMIT_MAX, Math.max(1, Math.floor(limit))),
      sessionUrl: (id) => `${pages}/sessions/${encodeURIComponent(id)}`,
      commitUrl: (sha) => `${pages}/commits/${sha}`,
    });
    // What is not indexed yet is indexed in the background; the page says how much is left.
    if (pending > 0) this.searching?.index.schedule(project.id);
    // Snippets of transcripts and summaries are a read of them (issue 31), as opening one is.
    const shown = hits.flatMap((hit) => hit.conversation_id ?? []);
    if (this.readsContent && shown.length > 0) await this.auditRead(project, 'team view search', shown);
    return { hits, pending, content_hidden: !this.readsContent };
  }

  async usage(projectId: string, conversationId: string): Promise<SessionUsage> {
    const project = await this.project(projectId);
    const prices = await this.prices();
    const [known] = await this.storage.query<{ n: number }>(
      `SELECT (SELECT COUNT(*) FROM view_sessions WHERE project_id = ? AND conversation_id = ?)
        + (SELECT COUNT(*) FROM view_transcripts WHERE project_id = ? AND conversation_id = ?) AS n`,
      [project.id, conversationId, project.id, conversationId],
    );
    if (!known?.n)
      throw new TracerError('unknown_session', `No session ${conversationId} in project ${projectId}.`, { exitCode: ExitCode.usage });
    const { deriveConversation } = await import('./usage.js');
    await deriveConversation(this.storage, project.id, prices, conversationId);
    const { teamSessionUsage } = await import('./cost.js');
    return teamSessionUsage(this.storage, project.id, conversationId, prices);
  }

  async cost(projectId: string): Promise<CostBreakdown> {
    const project = await this.project(projectId);
    const { teamCost } = await import('./cost.js');
    const breakdown = await teamCost(this.storage, project.id, await this.prices());
    // Transcripts not read yet are read in the background; the page says how many are left.
    if (breakdown.pending > 0) this.costing?.usage.schedule(project.id);
    return breakdown;
  }

  private async prices(): Promise<PriceTable> {
    if (this.costing) return this.costing.prices();
    const { loadPriceTable } = await import('../../cost/prices.js');
    return loadPriceTable(tracerHome());
  }

  async projects(): Promise<ProjectSummary[]> {
    const params: unknown[] = [this.token.org_slug];
    let only = '';
    if (this.token.project_slug !== null) {
      only = 'AND p.project_slug = ?';
      params.push(this.token.project_slug);
    }
    const rows = await this.storage.query<{ org_slug: string; project_slug: string; last_ts: string | null }>(
      `SELECT p.org_slug, p.project_slug, v.last_ts FROM projects p LEFT JOIN view_progress v ON v.project_id = p.id
       WHERE p.org_slug = ? ${only} ORDER BY p.org_slug, p.project_slug`,
      params,
    );
    const projects = rows.map((row) => {
      const id = `${row.org_slug}/${row.project_slug}`;
      return { id, name: id, repo_path: null, last_activity: row.last_ts };
    });
    return projects.sort((a, b) => (b.last_activity ?? '').localeCompare(a.last_activity ?? ''));
  }

  async projectStats(projectId: string): Promise<ProjectStats> {
    const project = await this.project(projectId);
    const [progress] = await this.storage.query<{ traces: number; last_ts: string | null }>(
      'SELECT traces, last_ts FROM view_progress WHERE project_id = ?',
      [project.id],
    );
    const [sessions] = await this.storage.query<{ n: number }>('SELECT COUNT(*) AS n FROM view_sessions WHERE project_id = ?', [
      project.id,
    ]);
    const [commits] = await this.storage.query<{
      n: number;
      ai: number | null;
      human: number | null;
      mixed: number | null;
      last: string | null;
    }>(
      `SELECT COUNT(*) AS n, SUM(ai) AS ai, SUM(human) AS human, SUM(mixed) AS mixed, MAX(ts) AS last
       FROM view_commits c WHERE c.project_id = ? AND ${NOT_REPLACED}`,
      [project.id],
    );
    const ai = commits?.ai ?? 0;
    const all = ai + (commits?.human ?? 0) + (commits?.mixed ?? 0);
    const last =
      [progress?.last_ts ?? null, commits?.last ?? null]
        .filter((ts): ts is string => Boolean(ts))
        .sort()
        .at(-1) ?? null;
    return {
      sessions: sessions?.n ?? 0,
      commits: commits?.n ?? 0,
      traces: progress?.traces ?? 0,
      ai_share: all === 0 ? null : (ai + (commits?.mixed ?? 0) / 2) / all,
      last_activity: last,
    };
  }

  async progress(projectId: string): Promise<CatchUpProgress> {
    const project = await this.project(projectId);
    const { folded, total } = await viewProgress(this.storage, project.id);
    return { catching_up: folded < total, folded, total };
  }

  async facets(projectId: string): Promise<Facets> {
    const project = await this.project(projectId);
    const rows = await this.storage.query<{ kind: string; value: string }>(
      'SELECT kind, value FROM view_facets WHERE project_id = ? ORDER BY kind, value',
      [project.id],
    );
    return {
      agents: rows.filter((row) => row.kind === 'agent').map((row) => row.value),
      models: rows.filter((row) => row.kind === 'model').map((row) => row.value),
    };
  }

  async sessions(projectId: string, query: ListQuery): Promise<Page<SessionRow>> {
    const project = await this.project(projectId);
    const where = ['s.project_id = ?'];
    const params: unknown[] = [project.id];
    const same = 'm.project_id = s.project_id AND m.conversation_id = s.conversation_id';
    if (query.agent) {
      where.push('s.agent = ?');
      params.push(query.agent);
    }
    if (query.model) {
      where.push(`EXISTS (SELECT 1 FROM view_session_models m WHERE ${same} AND m.model = ?)`);
      params.push(query.model);
    }
    dates(where, params, 's.first_ts', 's.last_ts', query);
    if (query.q) {
      const like = likePattern(query.q);
      // A token that may not read transcripts does not search their summaries either (issue 31).
      const summaries = this.readsContent ? 'lower(m.summary)' : "''";
      where.push(`(lower(s.conversation_id) LIKE ? ESCAPE '\\' OR lower(s.agent) LIKE ? ESCAPE '\\' OR lower(coalesce(s.person, '')) LIKE ? ESCAPE '\\'
        OR EXISTS (SELECT 1 FROM view_summaries m WHERE ${same} AND ${summaries} LIKE ? ESCAPE '\\')
        OR EXISTS (SELECT 1 FROM view_session_models m WHERE ${same} AND lower(m.model) LIKE ? ESCAPE '\\')
        OR EXISTS (SELECT 1 FROM view_session_files m WHERE ${same} AND lower(m.path) LIKE ? ESCAPE '\\'))`);
      params.push(like, like, like, like, like, like);
    }
    const { offset, limit } = paging(query);
    const filter = where.join(' AND ');
    const [count] = await this.storage.query<{ n: number }>(`SELECT COUNT(*) AS n FROM view_sessions s WHERE ${filter}`, params);
    const rows = await this.storage.query<SessionSql>(
      `SELECT s.conversation_id, s.agent, s.first_ts, s.last_ts, s.events, s.person FROM view_sessions s
       WHERE ${filter} ORDER BY s.last_ts DESC, s.conversation_id DESC LIMIT ? OFFSET ?`,
      [...params, limit, offset],
    );
    return { total: count?.n ?? 0, offset, items: await this.sessionRows(project.id, rows) };
  }

  async commits(projectId: string, query: ListQuery): Promise<Page<CommitRow>> {
    const project = await this.project(projectId);
    const where = ['c.project_id = ?', NOT_REPLACED];
    const params: unknown[] = [project.id];
    const same = 'p.project_id = c.project_id AND p.sha = c.sha';
    if (query.agent) {
      where.push(`EXISTS (SELECT 1 FROM view_commit_parts p WHERE ${same} AND p.agent = ?)`);
      params.push(query.agent);
    }
    if (query.model) {
      where.push(`EXISTS (SELECT 1 FROM view_commit_parts p WHERE ${same} AND p.model = ?)`);
      params.push(query.model);
    }
    dates(where, params, 'c.ts', 'c.ts', query);
    if (query.q) {
      const like = likePattern(query.q);
      where.push(`(c.sha LIKE ? ESCAPE '\\' OR lower(c.paths) LIKE ? ESCAPE '\\' OR lower(coalesce(c.person, '')) LIKE ? ESCAPE '\\'
        OR EXISTS (SELECT 1 FROM view_commit_names m WHERE m.project_id = c.project_id AND m.sha = c.sha
          AND (lower(m.subject) LIKE ? ESCAPE '\\' OR lower(coalesce(m.author_name, '')) LIKE ? ESCAPE '\\')))`);
      params.push(like, like, like, like, like);
    }
    const { offset, limit } = paging(query);
    const filter = where.join(' AND ');
    const [count] = await this.storage.query<{ n: number }>(`SELECT COUNT(*) AS n FROM view_commits c WHERE ${filter}`, params);
    const rows = await this.storage.query<CommitSql>(
      `SELECT c.sha, c.ts, c.seq, c.ai, c.human, c.mixed, c.files, c.person, n.subject, n.author_name FROM view_commits c ${NAMED}
       WHERE ${filter} ORDER BY c.ts DESC, c.sha DESC LIMIT ? OFFSET ?`,
      [...params, limit, offset],
    );
    const parts = await this.partsOf(
      project.id,
      rows.map((row) => row.sha),
    );
    const items = rows.map((row): CommitRow => ({
      sha: row.sha,
      ts: row.ts || null,
      subject: row.subject,
      author: row.author_name ?? row.person,
      lines: { ai: row.ai, human: row.human, mixed: row.mixed },
      files: row.files,
      agents: parts.get(row.sha)?.agents ?? [],
      models: parts.get(row.sha)?.models ?? [],
    }));
    return { total: count?.n ?? 0, offset, items };
  }

  async session(projectId: string, conversationId: string): Promise<SessionDetail> {
    const project = await this.project(projectId);
    const [found] = await this.storage.query<SessionSql>(
      'SELECT conversation_id, agent, first_ts, last_ts, events, person FROM view_sessions WHERE project_id = ? AND conversation_id = ?',
      [project.id, conversationId],
    );
    const transcript = this.readsContent ? await this.transcriptOf(project.id, conversationId) : undefined;
    const forgotten = await this.forgottenOf(project.id, conversationId);
    if (!found && !transcript && !forgotten)
      throw new TracerError('unknown_session', `No session ${conversationId} in project ${projectId}.`, { exitCode: ExitCode.usage });
    const aggregate = found ?? { conversation_id: conversationId, agent: 'unknown', first_ts: '', last_ts: '', events: 0, person: null };
    const [row] = await this.sessionRows(project.id, [aggregate]);
    const traces = await this.storage.query<{ body: string }>(
      `SELECT i.body FROM view_session_traces t JOIN items i ON i.seq = t.seq
       WHERE t.project_id = ? AND t.conversation_id = ? ORDER BY t.seq LIMIT ?`,
      [project.id, conversationId, TIMELINE_MAX],
    );
    const timeline = traces.flatMap((trace) => timelineEvent(parse(trace.body)) ?? []);
    const commits = await this.storage.query<{ sha: string; ts: string; subject: string | null }>(
      `SELECT c.sha, c.ts, n.subject FROM view_commit_sessions l JOIN view_commits c ON c.project_id = l.project_id AND c.sha = l.sha ${NAMED}
       WHERE l.project_id = ? AND l.conversation_id = ? AND ${NOT_REPLACED} ORDER BY c.ts DESC LIMIT 200`,
      [project.id, conversationId],
    );
    const agent = aggregate.agent;
    if (row?.summary) await this.auditRead(project, 'team view session summary', [conversationId]);
    return {
      ...row!,
      conversation_url: AGENT_ID.test(agent) ? conversationUrl(agent, conversationId) : null,
      timeline,
      timeline_total: aggregate.events,
      commits: commits.map((commit) => ({ sha: commit.sha, ts: commit.ts || null, subject: commit.subject })),
      transcript_bytes: transcript?.size ?? null,
      forgotten,
      transcript_hidden: !this.readsContent,
      forget_url:
        roleAllows(this.token.role, 'admin') && this.forgetPath && (found || transcript)
          ? this.forgetPath(projectId, conversationId)
          : null,
    };
  }

  /** One audit entry for conversation content this token was shown (never the content itself). */
  private async auditRead(
    project: { org_slug: string; project_slug: string },
    via: string,
    conversations: readonly string[],
  ): Promise<void> {
    const ids = [...new Set(conversations)];
    await recordAudit(this.storage, {
      action: 'transcript.read',
      actor: actorOf(this.token),
      org_slug: project.org_slug,
      project_slug: project.project_slug,
      target: { via, conversations: ids.slice(0, 100), conversations_total: ids.length },
    });
  }

  /** Whether this token may read transcripts and summaries: `read` and `admin`, not `push` (issue 31). */
  private get readsContent(): boolean {
    return roleAllows(this.token.role, 'read');
  }

  /** The newest tombstone of the conversation's content, when it was forgotten or expired. */
  private async forgottenOf(projectId: number, conversationId: string): Promise<SessionDetail['forgotten']> {
    const [row] = await this.storage.query<{ body: string }>(
      'SELECT body FROM tombstones WHERE project_id = ? AND conversation_id = ? ORDER BY seq DESC LIMIT 1',
      [projectId, conversationId],
    );
    const stone = row ? (parse(row.body) as { reason?: string; ts?: string; by?: string } | undefined) : undefined;
    if (!stone || (stone.reason !== 'forget' && stone.reason !== 'retention')) return null;
    return { reason: stone.reason, ts: String(stone.ts ?? ''), by: String(stone.by ?? '') };
  }

  async transcript(projectId: string, conversationId: string, cursor: string | undefined, limit: number): Promise<TranscriptPage> {
    const project = await this.project(projectId);
    if (!this.readsContent)
      throw new TracerError(
        'role_forbids',
        `Token "${this.token.name}" has role ${this.token.role}, which shows no transcripts; sign in with a token of role read or admin.`,
      );
    const found = await this.transcriptOf(project.id, conversationId);
    if (!found) throw new TracerError('transcript_missing', `No transcript of ${conversationId} was pushed to this service.`);
    // Opening a transcript is a read (issue 31); the pages after the first are the same read.
    if (!cursor)
      await recordAudit(this.storage, {
        action: 'transcript.read',
        actor: actorOf(this.token),
        org_slug: project.org_slug,
        project_slug: project.project_slug,
        target: { via: 'team view', conversations: [conversationId], blob_sha256: found.sha },
      });
    const [session] = await this.storage.query<{ agent: string }>(
      'SELECT agent FROM view_sessions WHERE project_id = ? AND conversation_id = ?',
      [project.id, conversationId],
    );
    const agent = session && AGENT_ID.test(session.agent) ? session.agent : undefined;
    return transcriptPage((start) => this.storage.readBlob(project.id, found.sha, start), agent, cursor, limit);
  }

  async commit(projectId: string, requested: string): Promise<CommitDetail> {
    const project = await this.project(projectId);
    if (!/^[0-9a-f]{4,64}$/i.test(requested)) throw unknownCommit(requested);
    const wanted = requested.toLowerCase();
    // A prefix is a range of the primary key: every longer hex sha starting with it sorts before prefix + "g".
    const rows = await this.storage.query<CommitSql>(
      `SELECT c.sha, c.ts, c.seq, c.ai, c.human, c.mixed, c.files, c.person, n.subject, n.author_name FROM view_commits c ${NAMED}
       WHERE c.project_id = ? AND c.sha >= ? AND c.sha < ? ORDER BY c.sha LIMIT 2`,
      [project.id, wanted, `${wanted}g`],
    );
    const row = rows.find((candidate) => candidate.sha === wanted) ?? (rows.length === 1 ? rows[0] : undefined);
    if (!row) throw unknownCommit(requested);
    const [ledger] = await this.storage.query<{ body: string }>('SELECT body FROM items WHERE seq = ? AND project_id = ?', [
      row.seq,
      project.id,
    ]);
    const line = parse(ledger?.body ?? '');
    const record = isObject(line) ? agentTraceRecord(line) : {};
    const summaries = this.readsContent ? await this.summariesOf(project.id, conversationIdsOf(record)) : new Map<string, string>();
    const files = ledgerFiles(record, (id) => summaries.get(id) ?? null);
    return {
      ...emptyDetail(row.sha),
      ts: row.ts || null,
      subject: row.subject,
      author: row.author_name ?? row.person,
      lines: { ai: row.ai, human: row.human, mixed: row.mixed },
      has_ledger: true,
      files,
      sessions: ledgerSessions(files),
    };
  }

  async blame(projectId: string): Promise<BlameResult> {
    await this.project(projectId);
    throw new TracerError(
      'blame_unavailable',
      'The trace service keeps no repository, so it has no blame; run tracer blame or tracer view in a clone.',
      { exitCode: ExitCode.failure },
    );
  }

  async share(projectId: string): Promise<ShareBreakdown> {
    const project = await this.project(projectId);
    // A squash or cherry-pick made with the hooks on holds its branch commit's lines again: counted once, there (cost.ts).
    const { copiedCommits } = await import('./cost.js');
    const copied = await copiedCommits(this.storage, project.id);
    const grouped = async (key: string, extra = '') => {
      const rows = await this.storage.query<{ key: string; sha: string; kind: string; lines: number }>(
        `SELECT ${key} AS key, p.sha, p.kind, SUM(p.lines) AS lines FROM view_commit_parts p
         JOIN view_commits c ON c.project_id = p.project_id AND c.sha = p.sha
         WHERE p.project_id = ? AND ${NOT_REPLACED} ${extra} GROUP BY ${key}, p.sha, p.kind`,
        [project.id],
      );
      const byKey = new Map<string, ShareRow>();
      for (const row of rows) {
        if (copied.has(row.sha)) continue;
        const share = byKey.get(row.key) ?? { key: row.key, ai: 0, human: 0, mixed: 0 };
        if (row.kind === 'ai' || row.kind === 'human' || row.kind === 'mixed') share[row.kind] += row.lines;
        byKey.set(row.key, share);
      }
      return [...byKey.values()];
    };
    const mostFirst = (rows: ShareRow[]) => rows.sort((a, b) => b.ai + b.mixed - (a.ai + a.mixed) || a.key.localeCompare(b.key));
    return {
      by_day: (await grouped('substr(c.ts, 1, 10)')).sort((a, b) => a.key.localeCompare(b.key)),
      by_agent: mostFirst(await grouped('p.agent', "AND p.kind <> 'human'")),
      by_model: mostFirst(await grouped('p.model', "AND p.kind <> 'human' AND p.model <> ''")),
      by_person: (await grouped("coalesce(c.person, '')")).sort(
        (a, b) => b.ai + b.human + b.mixed - (a.ai + a.human + a.mixed) || a.key.localeCompare(b.key),
      ),
    };
  }

  /** The project behind an id this token covers, brought up to date (or being so); anything else is unknown_project. */
  private async project(projectId: string): Promise<ProjectRef> {
    const [org, slug, ...rest] = projectId.split('/');
    const found =
      org !== undefined && slug !== undefined && rest.length === 0 && tokenCovers(this.token, org, slug)
        ? await this.storage.findProject(org, slug)
        : undefined;
    if (!found) throw new TracerError('unknown_project', `No project ${projectId} that this token may see.`, { exitCode: ExitCode.usage });
    await this.view.ready(found.id);
    return found;
  }

  private async sessionRows(projectId: number, rows: readonly SessionSql[]): Promise<SessionRow[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((row) => row.conversation_id);
    const marks = ids.map(() => '?').join(', ');
    const [models, files, counts, summaries, transcripts] = await Promise.all([
      this.storage.query<{ conversation_id: string; model: string }>(
        `SELECT conversation_id, model FROM view_session_models WHERE project_id = ? AND conversation_id IN (${marks}) ORDER BY model`,
        [projectId, ...ids],
      ),
      this.storage.query<{ conversation_id: string; path: string }>(
        `SELECT conversation_id, path FROM (
           SELECT conversation_id, path, seq, ROW_NUMBER() OVER (PARTITION BY conversation_id ORDER BY seq, path) AS n
           FROM view_session_files WHERE project_id = ? AND conversation_id IN (${marks})
         ) f WHERE n <= ? ORDER BY seq, path`,
        [projectId, ...ids, FILES_SHOWN],
      ),
      this.storage.query<{ conversation_id: string; n: number }>(
        `SELECT conversation_id, COUNT(*) AS n FROM view_session_files WHERE project_id = ? AND conversation_id IN (${marks}) GROUP BY conversation_id`,
        [projectId, ...ids],
      ),
      this.readsContent ? this.summariesOf(projectId, ids) : new Map<string, string>(),
      this.storage.query<{ conversation_id: string }>(
        `SELECT conversation_id FROM view_transcripts WHERE project_id = ? AND conversation_id IN (${marks})`,
        [projectId, ...ids],
      ),
    ]);
    const listOf = <T extends { conversation_id: string }>(items: T[], pick: (item: T) => string) => {
      const map = new Map<string, string[]>();
      for (const item of items) map.set(item.conversation_id, [...(map.get(item.conversation_id) ?? []), pick(item)]);
      return map;
    };
    const modelsOf = listOf(models, (row) => row.model);
    const filesOf = listOf(files, (row) => row.path);
    const countOf = new Map(counts.map((row) => [row.conversation_id, row.n]));
    const withTranscript = new Set(transcripts.map((row) => row.conversation_id));
    return rows.map((row) => ({
      conversation_id: row.conversation_id,
      agent: row.agent,
      models: modelsOf.get(row.conversation_id) ?? [],
      first_ts: row.first_ts,
      last_ts: row.last_ts,
      events: row.events,
      files: filesOf.get(row.conversation_id) ?? [],
      files_total: countOf.get(row.conversation_id) ?? 0,
      summary: summaries.get(row.conversation_id) ?? null,
      has_transcript: this.readsContent && withTranscript.has(row.conversation_id),
      person: row.person,
    }));
  }

  private async summariesOf(projectId: number, ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.storage.query<{ conversation_id: string; summary: string }>(
      `SELECT conversation_id, summary FROM view_summaries WHERE project_id = ? AND conversation_id IN (${ids.map(() => '?').join(', ')})`,
      [projectId, ...ids],
    );
    return new Map(rows.map((row) => [row.conversation_id, row.summary]));
  }

  private async partsOf(projectId: number, shas: readonly string[]): Promise<Map<string, { agents: string[]; models: string[] }>> {
    const found = new Map<string, { agents: string[]; models: string[] }>();
    if (shas.length === 0) return found;
    const rows = await this.storage.query<{ sha: string; agent: string; model: string }>(
      `SELECT DISTINCT sha, agent, model FROM view_commit_parts WHERE project_id = ? AND sha IN (${shas.map(() => '?').join(', ')})
       ORDER BY sha, agent, model`,
      [projectId, ...shas],
    );
    for (const row of rows) {
      const entry = found.get(row.sha) ?? { agents: [], models: [] };
      if (row.agent && !entry.agents.includes(row.agent)) entry.agents.push(row.agent);
      if (row.model && !entry.models.includes(row.model)) entry.models.push(row.model);
      found.set(row.sha, entry);
    }
    return found;
  }

  private async transcriptOf(projectId: number, conversationId: string): Promise<{ sha: string; size: number } | undefined> {
    const [row] = await this.storage.query<{ sha: string; size: number }>(
      'SELECT sha, size FROM view_transcripts WHERE project_id = ? AND conversation_id = ?',
      [projectId, conversationId],
    );
    return row;
  }
}

function paging(query: ListQuery): { offset: number; limit: number } {
  return {
    offset: Math.max(0, Math.floor(query.offset ?? 0)),
    limit: Math.min(PAGE_MAX, Math.max(1, Math.floor(query.limit ?? PAGE_DEFAULT))),
  };
}

/** The local viewer's date rule in SQL: a row counts when its span meets [from, to]; a bare `to` date takes in its whole day. */
function dates(where: string[], params: unknown[], first: string, last: string, query: ListQuery): void {
  if (query.from) {
    where.push(`${last} >= ?`);
    params.push(query.from);
  }
  if (query.to) {
    const day = /^\d{4}-\d{2}-\d{2}$/.test(query.to) ? new Date(`${query.to}T00:00:00Z`) : undefined;
    if (day && !Number.isNaN(day.getTime())) {
      where.push(`${first} < ?`);
      params.push(new Date(day.getTime() + 86_400_000).toISOString().slice(0, 10));
    } else {
      where.push(`${first} <= ?`);
      params.push(query.to);
    }
  }
}

/** A case-insensitive substring pattern, its own % and _ taken literally. */
function likePattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

function conversationIdsOf(record: Record<string, unknown>): string[] {
  return ledgerSessions(ledgerFiles(record, () => null)).map((session) => session.conversation_id);
}

function unknownCommit(sha: string): TracerError {
  return new TracerError('unknown_commit', `No commit ${sha} in this project's ledgers on the service.`, { exitCode: ExitCode.usage });
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
