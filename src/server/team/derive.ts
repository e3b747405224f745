// The team view's tables, derived from the rows clients pushed: one batch of
// `items` (in ingest order) becomes one fold plan, bulk upserts into the view_*
// tables. Pure: no database here; team/fold-sql.ts writes the plan as each
// backend runs it best, and the readers of traces and ledgers are the local viewer's own.
import { ledgerAggregate } from '../../viewer/local/ledger-index.js';
import { agentTraceRecord, parseConversationUrl } from '../../viewer/local/ledger-read.js';
import { isObject, str } from '../../viewer/local/refreshing-file.js';
import { traceFields } from '../../viewer/local/trace-index.js';

export interface ItemRow {
  seq: number;
  family: string;
  body: string;
  pushed_by: string | null;
}

/** A column's type, for the backends that send a whole column as one typed array. */
export type ColumnType = 'int' | 'text';

/** Rows for one table, all with the same conflict clause. */
export interface BulkInsert {
  table: string;
  /** Column name → type, in the order of each row's values. */
  columns: Readonly<Record<string, ColumnType>>;
  rows: unknown[][];
  /** What follows the rows: `ON CONFLICT ...`. */
  conflict: string;
}

/** Everything one batch changes, in the order it must be applied. */
export interface FoldPlan {
  projectId: number;
  /** Commits whose parts, traces and parents a newer ledger replaces wholesale (its ranges may have shrunk): deleted before the inserts. */
  replacedParts: string[];
  inserts: BulkInsert[];
  /** The new watermark: the batch's last seq, how many rows and traces it held, its newest trace time. */
  progress: { seq: number; rows: number; traces: number; lastTs: string | null };
}

/** Rows folded in per transaction: small enough that other requests wait at most tens of milliseconds. */
export const VIEW_BATCH = 2000;

const laterTs = (table: string, column: string) =>
  `${column} = CASE WHEN excluded.${column} > ${table}.${column} THEN excluded.${column} ELSE ${table}.${column} END`;
const earlierTs = (table: string, column: string) =>
  `${column} = CASE WHEN excluded.${column} < ${table}.${column} THEN excluded.${column} ELSE ${table}.${column} END`;

interface SessionDelta {
  agent: string;
  first_ts: string;
  last_ts: string;
  events: number;
  person: string | null;
}

/** What folding `rows` (all of one project, in seq order) into the view tables changes. */
export function foldPlan(projectId: number, rows: readonly ItemRow[]): FoldPlan {
  const sessions = new Map<string, SessionDelta>();
  const models = new UniqueRows();
  const files = new UniqueRows(3);
  const traceRefs: unknown[][] = [];
  const facets = new UniqueRows();
  const commits = new Map<string, unknown[]>();
  const parts = new Map<string, unknown[][]>();
  const commitTraces = new Map<string, unknown[][]>();
  const commitParents = new Map<string, unknown[][]>();
  const commitSessions = new UniqueRows();
  const replaced = new UniqueRows();
  const names = new Map<string, unknown[]>();
  const summaries = new Map<string, unknown[]>();
  const transcripts = new Map<string, unknown[]>();
  const written = new Map<string, unknown[]>();
  let traces = 0;
  let lastTs: string | null = null;
  let seq = 0;

  for (const row of rows) {
    seq = row.seq;
    if (row.family === 'traces') {
      const fields = traceFields(row.body);
      if (!fields) continue;
      traces += 1;
      if (lastTs === null || fields.ts > lastTs) lastTs = fields.ts;
      const agent = fields.agent ?? 'unknown';
      const session = sessions.get(fields.conversationId);
      if (!session) {
        sessions.set(fields.conversationId, { agent, first_ts: fields.ts, last_ts: fields.ts, events: 1, person: row.pushed_by });
      } else {
        session.events += 1;
        if (fields.ts < session.first_ts) session.first_ts = fields.ts;
        if (fields.ts > session.last_ts) session.last_ts = fields.ts;
      }
      facets.push([projectId, 'agent', agent]);
      if (fields.model !== undefined) {
        models.push([projectId, fields.conversationId, fields.model]);
        facets.push([projectId, 'model', fields.model]);
      }
      for (const path of fields.paths) files.push([projectId, fields.conversationId, path, row.seq]);
      traceRefs.push([projectId, fields.conversationId, row.seq]);
      const lines = writtenLines(row.body);
      if (lines > 0) {
        const key = [projectId, fields.conversationId, fields.model ?? '', fields.ts.slice(0, 10)];
        const known = written.get(JSON.stringify(key));
        if (known) (known[4] as number) += lines;
        else written.set(JSON.stringify(key), [...key, lines]);
      }
      continue;
    }
    const value = parse(row.body);
    if (!isObject(value)) continue;
    if (row.family === 'ledgers') {
      const ledger = ledgerAggregate(value);
      if (!ledger) continue;
      // Ingest order: a later ledger of the same commit replaces the earlier one, as a later line does locally.
      const author = authorOf(value);
      commits.set(ledger.sha, [
        projectId,
        ledger.sha,
        ledger.ts ?? '',
        row.seq,
        ledger.lines.ai,
        ledger.lines.human,
        ledger.lines.mixed,
        ledger.files,
        ledger.paths.join('\n'),
        author ?? row.pushed_by,
      ]);
      parts.set(
        ledger.sha,
        ledger.parts.map((part) => [projectId, ledger.sha, part.agent, part.model, part.kind, part.lines]),
      );
      for (const id of ledger.conversationIds) commitSessions.push([projectId, ledger.sha, id]);
      commitTraces.set(
        ledger.sha,
        ledgerTraceIds(value).map((id) => [projectId, ledger.sha, id]),
      );
      commitParents.set(
        ledger.sha,
        ledgerParents(value).map((parent) => [projectId, ledger.sha, parent]),
      );
    } else if (row.family === 'commit-links') {
      const sha = str(value.commit);
      const from = str(value.rewritten_from);
      if (from !== undefined) replaced.push([projectId, from]);
      // The commit's name (issue 32): a later link of the same commit names it again; links from before name nothing.
      const subject = str(value.subject);
      if (sha !== undefined && subject !== undefined)
        names.set(sha, [projectId, sha, row.seq, subject, str(value.author_name) ?? null, str(value.committed_at) ?? null]);
      if (sha !== undefined && Array.isArray(value.session_ids))
        for (const id of value.session_ids) if (typeof id === 'string') commitSessions.push([projectId, sha, id]);
    } else if (row.family === 'summaries') {
      if (typeof value.summary !== 'string') continue;
      const id = str(value.conversation_id) ?? parseConversationUrl(str(value.conversation_url))?.conversationId;
      const ts = str(value.ts) ?? '';
      const known = summaries.get(id ?? '');
      if (id !== undefined && (!known || ts >= (known[2] as string))) summaries.set(id, [projectId, id, ts, value.summary]);
    } else if (row.family === 'conversations') {
      const id = str(value.conversation_id);
      const sha = str(value.content_sha256);
      const ts = str(value.ts) ?? '';
      if (id === undefined || sha === undefined || typeof value.size !== 'number') continue;
      const known = transcripts.get(id);
      if (!known || ts >= (known[2] as string)) transcripts.set(id, [projectId, id, ts, sha, value.size]);
    }
  }

  const bulk: BulkInsert[] = [
    {
      table: 'view_sessions',
      columns: {
        project_id: 'int',
        conversation_id: 'text',
        agent: 'text',
        first_ts: 'text',
        last_ts: 'text',
        events: 'int',
        person: 'text',
      },
      rows: [...sessions].map(([id, s]) => [projectId, id, s.agent, s.first_ts, s.last_ts, s.events, s.person]),
      conflict: `ON CONFLICT (project_id, conversation_id) DO UPDATE SET ${earlierTs('view_sessions', 'first_ts')}, ${laterTs(
        'view_sessions',
        'last_ts',
      )}, events = view_sessions.events + excluded.events`,
    },
    {
      table: 'view_session_models',
      columns: { project_id: 'int', conversation_id: 'text', model: 'text' },
      rows: models.rows,
      conflict: 'ON CONFLICT DO NOTHING',
    },
    {
      table: 'view_session_files',
      columns: { project_id: 'int', conversation_id: 'text', path: 'text', seq: 'int' },
      rows: files.rows,
      conflict: 'ON CONFLICT DO NOTHING',
    },
    {
      table: 'view_session_traces',
      columns: { project_id: 'int', conversation_id: 'text', seq: 'int' },
      rows: traceRefs,
      conflict: 'ON CONFLICT DO NOTHING',
    },
    {
      table: 'view_facets',
      columns: { project_id: 'int', kind: 'text', value: 'text' },
      rows: facets.rows,
      conflict: 'ON CONFLICT DO NOTHING',
    },
    {
      table: 'view_commits',
      columns: {
        project_id: 'int',
        sha: 'text',
        ts: 'text',
        seq: 'int',
        ai: 'int',
        human: 'int',
        mixed: 'int',
        files: 'int',
        paths: 'text',
        person: 'text',
      },
      rows: [...commits.values()],
      conflict:
        'ON CONFLICT (project_id, sha) DO UPDATE SET ts = excluded.ts, seq = excluded.seq, ai = excluded.ai, human = excluded.human, mixed = excluded.mixed, files = excluded.files, paths = excluded.paths, person = excluded.person',
    },
    {
      table: 'view_commit_parts',
      columns: { project_id: 'int', sha: 'text', agent: 'text', model: 'text', kind: 'text', lines: 'int' },
      rows: [...parts.values()].flat(),
      conflict: 'ON CONFLICT DO NOTHING',
    },
    {
      table: 'view_commit_traces',
      columns: { project_id: 'int', sha: 'text', trace_id: 'text' },
      rows: [...commitTraces.values()].flat(),
      conflict: 'ON CONFLICT DO NOTHING',
    },
    {
      table: 'view_commit_parents',
      columns: { project_id: 'int', sha: 'text', parent: 'text' },
      rows: [...commitParents.values()].flat(),
      conflict: 'ON CONFLICT DO NOTHING',
    },
    {
      table: 'view_commit_sessions',
      columns: { project_id: 'int', sha: 'text', conversation_id: 'text' },
      rows: commitSessions.rows,
      conflict: 'ON CONFLICT DO NOTHING',
    },
    {
      table: 'view_commit_names',
      columns: { project_id: 'int', sha: 'text', seq: 'int', subject: 'text', author_name: 'text', committed_at: 'text' },
      rows: [...names.values()],
      conflict:
        'ON CONFLICT (project_id, sha) DO UPDATE SET seq = excluded.seq, subject = excluded.subject, author_name = excluded.author_name, committed_at = excluded.committed_at',
    },
    { table: 'view_replaced', columns: { project_id: 'int', sha: 'text' }, rows: replaced.rows, conflict: 'ON CONFLICT DO NOTHING' },
    {
      table: 'view_summaries',
      columns: { project_id: 'int', conversation_id: 'text', ts: 'text', summary: 'text' },
      rows: [...summaries.values()],
      conflict:
        'ON CONFLICT (project_id, conversation_id) DO UPDATE SET ts = excluded.ts, summary = excluded.summary WHERE excluded.ts >= view_summaries.ts',
    },
    {
      table: 'view_written',
      columns: { project_id: 'int', conversation_id: 'text', model: 'text', day: 'text', lines: 'int' },
      rows: [...written.values()],
      conflict: 'ON CONFLICT (project_id, conversation_id, model, day) DO UPDATE SET lines = view_written.lines + excluded.lines',
    },
    {
      table: 'view_transcripts',
      columns: { project_id: 'int', conversation_id: 'text', ts: 'text', sha: 'text', size: 'int' },
      rows: [...transcripts.values()],
      conflict:
        'ON CONFLICT (project_id, conversation_id) DO UPDATE SET ts = excluded.ts, sha = excluded.sha, size = excluded.size WHERE excluded.ts >= view_transcripts.ts',
    },
  ];

  return { projectId, replacedParts: [...parts.keys()], inserts: bulk, progress: { seq, rows: rows.length, traces, lastTs } };
}

/**
 * The lines a trace's edits wrote: the entries of its `files[].line_hashes`
 * (16 hex digits each, in quotes), counted in the row's text without parsing it.
 */
export function writtenLines(body: string): number {
  let lines = 0;
  for (let at = body.indexOf('"line_hashes"'); at !== -1; at = body.indexOf('"line_hashes"', at + 1)) {
    const open = body.indexOf('[', at);
    const close = open === -1 ? -1 : body.indexOf(']', open);
    if (close === -1) break;
    let quotes = 0;
    for (let index = open; index < close; index += 1) if (body.charCodeAt(index) === 0x22) quotes += 1;
    lines += quotes >> 1;
    at = close;
  }
  return lines;
}

/** Rows kept once per key (the first `keyColumns` values): a batch names the same file or model many times. */
class UniqueRows {
  readonly rows: unknown[][] = [];
  private readonly seen = new Set<string>();

  constructor(private readonly keyColumns?: number) {}

  push(row: unknown[]): void {
    const key = JSON.stringify(this.keyColumns === undefined ? row : row.slice(0, this.keyColumns));
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.rows.push(row);
  }
}

/** The person a ledger names itself, when it does (tracer's own ledgers name none: they are the same bytes on every machine). */
function authorOf(line: Record<string, unknown>): string | undefined {
  const record = isObject(line.record) ? line.record : line;
  const metadata = isObject(record.metadata) && isObject(record.metadata['dev.tracer']) ? record.metadata['dev.tracer'] : {};
  const author = metadata.author ?? line.author;
  if (typeof author === 'string') return author;
  if (isObject(author)) return str(author.name) ?? str(author.email);
  return undefined;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The traces whose lines a ledger attributes (its AI lines'), as the ledger line lists them. */
function ledgerTraceIds(ledger: Record<string, unknown>): string[] {
  const ids = Array.isArray(ledger.trace_ids) ? ledger.trace_ids : [];
  return [...new Set(ids.filter((id): id is string => typeof id === 'string'))];
}

/** The commit's parents, as the ledger's writer recorded them. */
function ledgerParents(ledger: Record<string, unknown>): string[] {
  const metadata = agentTraceRecord(ledger).metadata;
  const tracer = isObject(metadata) ? metadata['dev.tracer'] : undefined;
  const parents = isObject(tracer) && Array.isArray(tracer.parents) ? tracer.parents : [];
  return [...new Set(parents.filter((parent): parent is string => typeof parent === 'string'))];
}
