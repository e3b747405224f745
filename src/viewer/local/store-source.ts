// The viewer's data source over a local $TRACER_HOME. Nothing is read at
// start-up: a project's indexes are built on its first request (or by
// `warm`), then brought up to date from where they stopped on each request.
// It only ever opens files for reading.
import { join } from 'node:path';
import { conversationUrl } from '../../capture/hook/summary.js';
import { AGENT_ID } from '../../capture/hook/hook-event.js';
import { ExitCode, TracerError } from '../../core/errors.js';
import type { BlameFile, BlameResult } from '../blame-source.js';
import type {
  CommitDetail,
  CommitRow,
  Facets,
  ListQuery,
  Page,
  ProjectStats,
  ProjectSummary,
  SessionDetail,
  SessionRow,
  SessionUsage,
  TranscriptPage,
  ViewerDataSource,
} from '../data-source.js';
import type { UsageCache } from '../../cost/usage-cache.js';
import { commitDetail } from './commit-detail.js';
import { commitHeaders, type CommitHeader } from './git-read.js';
import { LedgerIndex } from './ledger-index.js';
import { listLocalProjects, summarize, type LocalProject } from './projects.js';
import { pageOf, matchesCommit, matchesSession } from './list-filter.js';
import { readSpans } from './refreshing-file.js';
import { timelineEvent } from './timeline.js';
import { TraceIndex, type SessionAggregate } from './trace-index.js';
import { TranscriptStore } from './transcripts.js';
import { repositoryPath } from './repository-path.js';

interface ProjectState {
  project: LocalProject;
  traces: TraceIndex;
  ledgers: LedgerIndex;
  transcripts: TranscriptStore;
  headers: Map<string, CommitHeader>;
  /** The environment git runs with: the command's. */
  env: NodeJS.ProcessEnv;
  /** Usage read from this project's transcripts, kept while the project is (src/cost/usage-cache.ts). */
  usage?: UsageCache;
}

const TIMELINE_MAX = 1_000;
const PROJECTS_INDEXED = 4;

export class LocalDataSource implements ViewerDataSource {
  private readonly states = new Map<string, ProjectState>();

  private readonly home: string;

  /** `where`: the command's tracer home, folder and environment (tracer view's, never the process's). */
  constructor(
    private readonly where: { home: string; cwd: string; env: NodeJS.ProcessEnv },
    private readonly blameFile?: BlameFile,
  ) {
    this.home = where.home;
  }

  async projects(): Promise<ProjectSummary[]> {
    const summaries = await Promise.all((await listLocalProjects(this.home)).map(summarize));
    return summaries.sort((a, b) => (b.last_activity ?? '').localeCompare(a.last_activity ?? ''));
  }

  /** Starts indexing a project ahead of its first page, without waiting. */
  warm(projectId: string): void {
    this.state(projectId)
      .then((state) => Promise.all([state.traces.refresh(), state.ledgers.refresh()]))
      .catch(() => undefined);
  }

  async projectStats(projectId: string): Promise<ProjectStats> {
    const state = await this.fresh(projectId);
    const totals = { ai: 0, human: 0, mixed: 0 };
    const commits = state.ledgers.current();
    for (const commit of commits) for (const kind of ['ai', 'human', 'mixed'] as const) totals[kind] += commit.lines[kind];
    const all = totals.ai + totals.human + totals.mixed;
    const lastLedger = commits[0]?.ts ?? null;
    const last =
      [state.traces.lastTs, lastLedger]
        .filter((ts): ts is string => ts !== null)
        .sort()
        .at(-1) ?? null;
    return {
      sessions: state.traces.sessions.size,
      commits: commits.length,
      traces: state.traces.traces,
      ai_share: all === 0 ? null : (totals.ai + totals.mixed / 2) / all,
      last_activity: last,
    };
  }

  async facets(projectId: string): Promise<Facets> {
    const state = await this.fresh(projectId);
    return { agents: [...state.traces.agents].sort(), models: [...state.traces.models].sort() };
  }

  async sessions(projectId: string, query: ListQuery): Promise<Page<SessionRow>> {
    const state = await this.fresh(projectId);
    const matching = [...state.traces.sessions.values()]
      .filter((session) => matchesSession(session, query, state.ledgers.summaryOf(session.conversationId)))
      .sort((a, b) => (a.lastTs < b.lastTs ? 1 : a.lastTs > b.lastTs ? -1 : 0));
    const page = pageOf(matching, query);
    const items = await Promise.all(page.items.map((session) => this.sessionRow(state, session)));
    return { ...page, items };
  }

  async commits(projectId: string, query: ListQuery): Promise<Page<CommitRow>> {
    const state = await this.fresh(projectId);
    let candidates = state.ledgers.current();
    // A search may name a subject or an author: those come from git, for every candidate, once.
    if (query.q)
      await this.headersFor(
        state,
        candidates.map((commit) => commit.sha),
      );
    candidates = candidates.filter((commit) => matchesCommit(commit, query, state.headers.get(commit.sha)));
    const page = pageOf(candidates, query);
    await this.headersFor(
      state,
      page.items.map((commit) => commit.sha),
    );
    const items = page.items.map((commit): CommitRow => {
      const header = state.headers.get(commit.sha);
      return {
        sha: commit.sha,
        ts: header?.ts || commit.ts,
        subject: header?.subject ?? null,
        author: header?.author ?? null,
        lines: commit.lines,
        files: commit.files,
        agents: commit.agents,
        models: commit.models,
      };
    });
    return { ...page, items };
  }

  async session(projectId: string, conversationId: string): Promise<SessionDetail> {
    const state = await this.fresh(projectId);
    const aggregate = state.traces.sessions.get(conversationId);
    const transcript = await state.transcripts.locate(conversationId);
    if (!aggregate && !transcript)
      throw new TracerError('unknown_session', `No session ${conversationId} in project ${projectId}.`, { exitCode: ExitCode.usage });
    const session = aggregate ?? emptySession(conversationId);
    const row = await this.sessionRow(state, session);
    const spans: Array<[number, number]> = [];
    for (let i = 0; i < session.spans.length && spans.length < TIMELINE_MAX; i += 2) spans.push([session.spans[i]!, session.spans[i + 1]!]);
    const timeline = (await readSpans(state.traces.file.path, spans)).flatMap((row) => timelineEvent(row) ?? []);
    const shas = state.ledgers.commitsOf(conversationId);
    await this.headersFor(state, shas);
    const commits = shas
      .map((sha) => ({
        sha,
        ts: state.headers.get(sha)?.ts ?? state.ledgers.commits.get(sha)?.ts ?? null,
        subject: state.headers.get(sha)?.subject ?? null,
      }))
      .sort((a, b) => (b.ts ?? '').localeCompare(a.ts ?? ''));
    const url = AGENT_ID.test(session.agent) ? conversationUrl(session.agent, conversationId) : null;
    return { ...row, conversation_url: url, timeline, timeline_total: session.events, commits, transcript_bytes: transcript?.size ?? null };
  }

  async transcript(projectId: string, conversationId: string, cursor: string | undefined, limit: number): Promise<TranscriptPage> {
    const state = await this.state(projectId);
    // The session's agent names the reader; the index is brought up to date only when it does not know the session yet.
    if (!state.traces.sessions.has(conversationId)) await state.traces.refresh();
    const agent = state.traces.sessions.get(conversationId)?.agent;
    return state.transcripts.page(conversationId, cursor, limit, agent === 'unknown' ? undefined : agent);
  }

  async usage(projectId: string, conversationId: string): Promise<SessionUsage> {
    const state = await this.fresh(projectId);
    const session = state.traces.sessions.get(conversationId);
    // The session's own rows say its agent, the lines it wrote and the usage its payloads reported.
    const spans: Array<[number, number]> = [];
    for (let i = 0; session && i < session.spans.length; i += 2) spans.push([session.spans[i]!, session.spans[i + 1]!]);
    const [{ sessionUsage }, { loadPriceTable }, { summarizeTraces }] = await Promise.all([
      import('../../cost/session-usage.js'),
      import('../../cost/prices.js'),
      import('../../cost/trace-summary.js'),
    ]);
    const traces = summarizeTraces(await readSpans(state.traces.file.path, spans)).get(conversationId);
    if (!session && !(await state.transcripts.hasSnapshot(conversationId)))
      throw new TracerError('unknown_session', `No session ${conversationId} in project ${projectId}.`, { exitCode: ExitCode.usage });
    return sessionUsage({
      projectDir: state.project.dir,
      context: this.context,
      prices: await loadPriceTable(this.home),
      conversationId,
      traces,
      cache: (state.usage ??= await this.usageCache(state.project.dir)),
    });
  }

  private async usageCache(projectDir: string): Promise<UsageCache> {
    const { UsageCache } = await import('../../cost/usage-cache.js');
    // The viewer only reads the store: what it reads of transcripts stays in this process.
    return new UsageCache(projectDir, this.context, { persist: false });
  }

  private get context() {
    return this.where;
  }

  async commit(projectId: string, sha: string): Promise<CommitDetail> {
    const state = await this.fresh(projectId);
    return commitDetail(state, sha);
  }

  async blame(projectId: string, path: string, rev: string | undefined): Promise<BlameResult> {
    const state = await this.state(projectId);
    // Refused before anything else, so that a path outside the repository is a 404 whatever else is missing.
    const inside = repositoryPath(path);
    if (!this.blameFile)
      throw new TracerError('blame_unavailable', 'This build of tracer has no blame module yet; the other pages still work.', {
        exitCode: ExitCode.failure,
      });
    const repo = state.project.repoPath;
    if (repo === null)
      throw new TracerError(
        'repository_missing',
        `No working tree of project ${projectId} is known on this machine; run tracer init in it.`,
        { exitCode: ExitCode.localState },
      );
    return this.blameFile({ repo, projectDir: state.project.dir }, inside, rev === undefined ? {} : { rev });
  }

  private async sessionRow(state: ProjectState, session: SessionAggregate): Promise<SessionRow> {
    return {
      conversation_id: session.conversationId,
      agent: session.agent,
      models: [...session.models],
      first_ts: session.firstTs,
      last_ts: session.lastTs,
      events: session.events,
      files: [...session.files].slice(0, 50),
      files_total: session.filesTotal,
      summary: state.ledgers.summaryOf(session.conversationId),
      has_transcript: await state.transcripts.hasSnapshot(session.conversationId),
    };
  }

  private async headersFor(state: ProjectState, shas: readonly string[]): Promise<void> {
    const missing = shas.filter((sha) => !state.headers.has(sha));
    for (const [sha, header] of await commitHeaders(state.project.repoPath, missing, state.env)) state.headers.set(sha, header);
  }

  private async fresh(projectId: string): Promise<ProjectState> {
    const state = await this.state(projectId);
    await Promise.all([state.traces.refresh(), state.ledgers.refresh()]);
    return state;
  }

  private async state(projectId: string): Promise<ProjectState> {
    const known = this.states.get(projectId);
    if (known) {
      // Most recently used last: the oldest is the one dropped when too many are held.
      this.states.delete(projectId);
      this.states.set(projectId, known);
      return known;
    }
    const project = (await listLocalProjects(this.home)).find((candidate) => candidate.id === projectId);
    if (!project) throw new TracerError('unknown_project', `No project ${projectId} in this tracer home.`, { exitCode: ExitCode.usage });
    const state: ProjectState = {
      project,
      traces: new TraceIndex(join(project.dir, 'traces.jsonl')),
      ledgers: new LedgerIndex({
        ledgers: join(project.dir, 'ledgers.jsonl'),
        commitLinks: join(project.dir, 'commit-links.jsonl'),
        summaries: join(project.dir, 'session-summaries.jsonl'),
      }),
      transcripts: new TranscriptStore(project.dir, this.where),
      headers: new Map(),
      env: this.where.env,
    };
    this.states.set(projectId, state);
    // Each index of a large project is tens of MB: a home with many projects keeps only the latest few.
    for (const oldest of this.states.keys()) {
      if (this.states.size <= PROJECTS_INDEXED) break;
      this.states.delete(oldest);
    }
    return state;
  }
}

export type { ProjectState };

function emptySession(conversationId: string): SessionAggregate {
  return {
    conversationId,
    agent: 'unknown',
    models: new Set(),
    firstTs: '',
    lastTs: '',
    events: 0,
    files: new Set(),
    filesTotal: 0,
    spans: [],
  };
}
