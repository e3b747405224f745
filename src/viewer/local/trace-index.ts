// Sessions of a project from traces.jsonl, one small aggregate per
// conversation: 100k traces become ~2,000 aggregates and two byte offsets per
// trace, never the parsed rows (a trace row's line hashes are most of its
// bytes). The session page rereads its own rows by offset.
import { isObject, RefreshingFile, str } from './refreshing-file.js';
import { scanTrace, type TraceFields } from './trace-scan.js';

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
      line: (bytes, from, to, start, end) => {
        const fields = traceFields(bytes.toString('utf8', from, to));
        if (fields === null) return false;
        if (fields !== undefined) this.add(fields, start, end);
        return true;
      },
    });
  }

  refresh(): Promise<void> {
    return this.file.refresh();
  }

  private add(row: TraceFields, start: number, end: number): void {
    const { conversationId, ts } = row;
    this.traces += 1;
    if (this.lastTs === null || ts > this.lastTs) this.lastTs = own(ts);
    const agent = row.agent ?? 'unknown';
    if (!this.agents.has(agent)) this.agents.add(own(agent));
    let session = this.sessions.get(conversationId);
    if (!session) {
      const id = own(conversationId);
      session = {
        conversationId: id,
        agent: own(agent),
        models: new Set(),
        firstTs: own(ts),
        lastTs: own(ts),
        events: 0,
        files: new Set(),
        filesTotal: 0,
        spans: [],
      };
      this.sessions.set(id, session);
    }
    session.events += 1;
    session.spans.push(start, end);
    if (ts < session.firstTs) session.firstTs = own(ts);
    if (ts > session.lastTs) session.lastTs = own(ts);
    if (row.model !== undefined && !session.models.has(row.model)) {
      session.models.add(own(row.model));
      if (!this.models.has(row.model)) this.models.add(own(row.model));
    }
    for (const path of row.paths) {
      if (session.files.has(path)) continue;
      if (session.files.size < FILES_KEPT) {
        session.files.add(own(path));
        session.filesTotal += 1;
        continue;
      }
      const more = this.overflow.get(conversationId) ?? new Set<string>();
      this.overflow.set(conversationId, more);
      if (!more.has(path)) {
        more.add(own(path));
        session.filesTotal += 1;
      }
    }
  }
}

/**
 * A copy of a string that does not keep its source alive: values cut out of a
 * row's text (trace-scan.ts) would otherwise hold the whole 1 KB row in memory
 * for as long as the index keeps them. Concatenating then slicing makes V8
 * flatten into a new short string.
 */
function own(value: string): string {
  return (' ' + value).slice(1);
}

/** The members a viewer indexes of one trace row's text; null when it is not JSON, undefined when it is no session's trace. */
export function traceFields(text: string): TraceFields | null | undefined {
  return scanTrace(text) ?? fieldsOf(parseText(text));
}

/** The same members from a parsed row; null when the line is not JSON, undefined when it is no session's trace. */
function fieldsOf(row: unknown): TraceFields | null | undefined {
  if (row === undefined) return null;
  if (!isObject(row)) return undefined;
  const conversationId = str(row.conversation_id);
  const ts = str(row.ts);
  if (conversationId === undefined || ts === undefined) return undefined;
  const paths = (Array.isArray(row.files) ? row.files : []).flatMap((file) =>
    isObject(file) && typeof file.path === 'string' ? [file.path] : [],
  );
  return { conversationId, ts, agent: str(row.agent), model: str(row.model), paths };
}

function parseText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
