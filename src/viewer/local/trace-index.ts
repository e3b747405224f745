import { isObject, RefreshingFile, str } from './refreshing-file.js';

/**
 * Sessions of a project from traces.jsonl, one small aggregate per
 * conversation: 100k traces become ~2,000 aggregates and two byte offsets per
 * trace, never the parsed rows (a trace row's line hashes are most of its
 * bytes). The session page rereads its own rows by offset.
 */
export interface SessionAggregate {
  conversationId: string;
  agent: string;
  models: Set<string>;
  firstTs: string;
  lastTs: string;
  events: number;
  /** Files in first-written order, kept up to FILES_KEPT; `filesTotal` counts them all. */
  files: Set<string>;
  filesTotal: number;
  /** [start, end) byte spans of the session's rows, flattened. */
  spans: number[];
}

const FILES_KEPT = 200;

export class TraceIndex {
  readonly sessions = new Map<string, SessionAggregate>();
  readonly agents = new Set<string>();
  readonly models = new Set<string>();
  traces = 0;
  lastTs: string | null = null;
  readonly file: RefreshingFile;
  /** Paths beyond FILES_KEPT, only to count them: held for the rare session that wrote that many files. */
  private readonly overflow = new Map<string, Set<string>>();

  constructor(path: string) {
    this.file = new RefreshingFile(path, {
      reset: () => {
        this.sessions.clear();
        this.agents.clear();
        this.models.clear();
        this.overflow.clear();
        this.traces = 0;
        this.lastTs = null;
      },
      row: (value, start, end) => this.add(value, start, end),
    });
  }

  refresh(): Promise<void> {
    return this.file.refresh();
  }

  private add(row: unknown, start: number, end: number): void {
    if (!isObject(row)) return;
    const conversationId = str(row.conversation_id);
    const ts = str(row.ts);
    if (conversationId === undefined || ts === undefined) return;
    this.traces += 1;
    if (this.lastTs === null || ts > this.lastTs) this.lastTs = ts;
    const agent = str(row.agent) ?? 'unknown';
    this.agents.add(agent);
    let session = this.sessions.get(conversationId);
    if (!session) {
      session = {
        conversationId,
        agent,
        models: new Set(),
        firstTs: ts,
        lastTs: ts,
        events: 0,
        files: new Set(),
        filesTotal: 0,
        spans: [],
      };
      this.sessions.set(conversationId, session);
    }
    session.events += 1;
    session.spans.push(start, end);
    if (ts < session.firstTs) session.firstTs = ts;
    if (ts > session.lastTs) session.lastTs = ts;
    const model = str(row.model);
    if (model !== undefined) {
      session.models.add(model);
      this.models.add(model);
    }
    if (!Array.isArray(row.files)) return;
    for (const file of row.files) {
      const path = isObject(file) ? str(file.path) : undefined;
      if (path === undefined || session.files.has(path)) continue;
      if (session.files.size < FILES_KEPT) {
        session.files.add(path);
        session.filesTotal += 1;
        continue;
      }
      const more = this.overflow.get(conversationId) ?? new Set<string>();
      this.overflow.set(conversationId, more);
      if (!more.has(path)) {
        more.add(path);
        session.filesTotal += 1;
      }
    }
  }
}
