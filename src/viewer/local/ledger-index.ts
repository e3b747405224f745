// Commits of a project: the newest ledger line of each commit (its byte span,
// to reread it whole for the commit page) with its line counts, agents and
// models; commit links for the sessions behind each commit and the commits an
// amend or rebase replaced; and the latest summary of each conversation.
import type { LineCounts } from '../data-source.js';
import { agentTraceRecord, contributorKind, ledgerCommit, ledgerTs, parseConversationUrl } from './ledger-read.js';
import { isObject, parsedLines, RefreshingFile, str } from './refreshing-file.js';

export interface CommitAggregate {
  sha: string;
  ts: string | null;
  span: [number, number];
  lines: LineCounts;
  files: number;
  paths: string[];
  agents: string[];
  models: string[];
  conversationIds: string[];
}

export class LedgerIndex {
  readonly commits = new Map<string, CommitAggregate>();
  /** conversation id → commits whose lines came from it. */
  private readonly linkedSessions = new Map<string, Set<string>>();
  private readonly replaced = new Set<string>();
  private readonly summaries = new Map<string, { ts: string; summary: string }>();
  readonly ledgers: RefreshingFile;
  private readonly links: RefreshingFile;
  private readonly summaryFile: RefreshingFile;

  constructor(paths: { ledgers: string; commitLinks: string; summaries: string }) {
    this.ledgers = new RefreshingFile(
      paths.ledgers,
      parsedLines({ reset: () => this.commits.clear(), row: (v, s, e) => this.addLedger(v, s, e) }),
    );
    this.links = new RefreshingFile(
      paths.commitLinks,
      parsedLines({
        reset: () => {
          this.linkedSessions.clear();
          this.replaced.clear();
        },
        row: (value) => this.addLink(value),
      }),
    );
    this.summaryFile = new RefreshingFile(
      paths.summaries,
      parsedLines({ reset: () => this.summaries.clear(), row: (value) => this.addSummary(value) }),
    );
  }

  async refresh(): Promise<void> {
    await Promise.all([this.ledgers.refresh(), this.links.refresh(), this.summaryFile.refresh()]);
  }

  /** Current commits (not replaced by an amend or rebase), newest first. */
  current(): CommitAggregate[] {
    return [...this.commits.values()].filter((commit) => !this.replaced.has(commit.sha)).sort(newestFirst);
  }

  commitsOf(conversationId: string): string[] {
    const shas = new Set(this.linkedSessions.get(conversationId) ?? []);
    for (const commit of this.commits.values()) if (commit.conversationIds.includes(conversationId)) shas.add(commit.sha);
    return [...shas].filter((sha) => !this.replaced.has(sha));
  }

  summaryOf(conversationId: string): string | null {
    return this.summaries.get(conversationId)?.summary ?? null;
  }

  private addLedger(value: unknown, start: number, end: number): void {
    const aggregate = ledgerAggregate(value);
    if (aggregate === undefined) return;
    const { parts: _parts, ...commit } = aggregate;
    this.commits.set(aggregate.sha, { ...commit, span: [start, end] });
  }

  private addLink(value: unknown): void {
    if (!isObject(value)) return;
    const sha = str(value.commit);
    const from = str(value.rewritten_from);
    if (from !== undefined) this.replaced.add(from);
    if (sha === undefined || !Array.isArray(value.session_ids)) return;
    for (const id of value.session_ids) {
      if (typeof id !== 'string') continue;
      const shas = this.linkedSessions.get(id) ?? new Set<string>();
      shas.add(sha);
      this.linkedSessions.set(id, shas);
    }
  }

  private addSummary(value: unknown): void {
    if (!isObject(value) || typeof value.summary !== 'string') return;
    const id = str(value.conversation_id) ?? parseConversationUrl(str(value.conversation_url))?.conversationId;
    if (id === undefined) return;
    const ts = str(value.ts) ?? '';
    const current = this.summaries.get(id);
    if (!current || ts >= current.ts) this.summaries.set(id, { ts, summary: value.summary });
  }
}

/** Lines of one commit by who wrote them: the agent and model of the conversation ('' when none) and the range's kind. */
export interface LedgerPart {
  agent: string;
  model: string;
  kind: keyof LineCounts;
  lines: number;
}

/** What the viewers keep of one ledger line (local index and the service's tables alike); undefined when it is no ledger. */
export function ledgerAggregate(value: unknown): (Omit<CommitAggregate, 'span'> & { parts: LedgerPart[] }) | undefined {
  if (!isObject(value)) return undefined;
  const sha = ledgerCommit(value);
  if (sha === undefined) return undefined;
  const record = agentTraceRecord(value);
  const files = Array.isArray(record.files) ? record.files.filter(isObject) : [];
  const agents = new Set<string>();
  const models = new Set<string>();
  const conversations = new Set<string>();
  const counted: LineCounts = { ai: 0, human: 0, mixed: 0 };
  const parts = new Map<string, LedgerPart>();
  for (const file of files) {
    for (const conversation of Array.isArray(file.conversations) ? file.conversations.filter(isObject) : []) {
      const parsed = parseConversationUrl(str(conversation.url));
      if (parsed) {
        agents.add(parsed.agent);
        conversations.add(parsed.conversationId);
      }
      const model = isObject(conversation.contributor) ? str(conversation.contributor.model_id) : undefined;
      if (model !== undefined) models.add(model);
      for (const range of Array.isArray(conversation.ranges) ? conversation.ranges.filter(isObject) : []) {
        const kind = contributorKind(range.contributor) ?? contributorKind(conversation.contributor);
        if (!kind || !Number.isInteger(range.start_line) || !Number.isInteger(range.end_line)) continue;
        const lines = Math.max(0, (range.end_line as number) - (range.start_line as number) + 1);
        counted[kind] += lines;
        const agent = kind === 'human' ? '' : (parsed?.agent ?? '');
        const key = JSON.stringify([agent, kind === 'human' ? '' : (model ?? ''), kind]);
        const part = parts.get(key) ?? { agent, model: kind === 'human' ? '' : (model ?? ''), kind, lines: 0 };
        part.lines += lines;
        parts.set(key, part);
      }
    }
  }
  return {
    sha,
    ts: ledgerTs(value) ?? null,
    lines: writerTotals(record) ?? counted,
    files: files.length,
    paths: files.slice(0, 50).flatMap((file) => str(file.path) ?? []),
    agents: [...agents],
    models: [...models],
    conversationIds: [...conversations],
    parts: [...parts.values()],
  };
}

/** The ledger writer's own totals (blank lines not counted) when it gave them. */
function writerTotals(record: Record<string, unknown>): LineCounts | undefined {
  const metadata = isObject(record.metadata) && isObject(record.metadata['dev.tracer']) ? record.metadata['dev.tracer'] : {};
  const lines = isObject(metadata.lines) ? metadata.lines : undefined;
  if (!lines || !Number.isInteger(lines.ai) || !Number.isInteger(lines.human)) return undefined;
  return { ai: lines.ai as number, human: lines.human as number, mixed: Number.isInteger(lines.mixed) ? (lines.mixed as number) : 0 };
}

function newestFirst(a: CommitAggregate, b: CommitAggregate): number {
  if (a.ts === b.ts) return b.span[0] - a.span[0];
  if (a.ts === null) return 1;
  if (b.ts === null) return -1;
  return a.ts < b.ts ? 1 : -1;
}
