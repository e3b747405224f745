// The team view's search index (issue 32): one document per pushed transcript
// (the freshest snapshot of each conversation, view_transcripts: the person's
// prompts, the assistant's messages and the files its tool calls wrote, read
// through the agent's transcript reader as the usage is), per summary
// (view_summaries) and per named commit (view_commit_names: its subject). On
// SQLite the text is in an FTS5 table (search_fts, by search_docs.id); on
// PostgreSQL it is search_docs.body with its tsvector, under a GIN index.
//
// search_docs.version says which source a document was made from (the
// snapshot's sha, the summary's time and length, the subject): after each fold
// the documents whose source changed are made again, and those whose source is
// gone are removed. A removal (forget, retention) deletes the documents of what
// it removed in its own transaction (dropDocuments), so no search finds them
// in between.
import type { FastifyBaseLogger } from 'fastify';
import { ProjectRefresher } from './project-refresher.js';
import { AGENT_ID } from '../../core/agent.js';
import { recognizeFormat, transcriptFormat } from '../../transcript/agents.js';
import { readItems } from '../../transcript/read.js';
import { streamSource } from '../../transcript/source.js';
import { searchWords, TS_CONFIG } from '../../search/tsquery.js';
import type { SqlTransaction, TraceStorage } from '../storage/types.js';

export type DocKind = 'transcript' | 'summary' | 'commit';

/** A document's text is cut here: a tsvector holds at most 1 MiB, and a snippet comes from the first match anyway. */
export const DOC_TEXT_MAX = 1_000_000;
/** Stale documents asked for per query, and made per transaction. */
const PAGE = 200;
const BATCH = 20;
/** New documents after which PostgreSQL's statistics of the index are gathered again. */
const ANALYZE_AFTER = 1000;
/** Transcripts read at once. */
const READ_AT_ONCE = 4;

interface Stale {
  kind: DocKind;
  key: string;
  version: string;
  ts: string | null;
  /** The text itself (a summary, a subject), or for a transcript what to read. */
  text?: string;
  transcript?: { sha: string; size: number; agent: string | null };
}

interface Doc {
  kind: DocKind;
  key: string;
  version: string;
  ts: string | null;
  body: string;
}

// Each source's rows, and the condition that its document is missing or older than it. An anti-join
// on the documents' unique key: one index lookup per row, whatever the planner believes of the sizes
// (with statistics not yet gathered, PostgreSQL once compared every row with every document).
const SOURCES: Record<DocKind, { select: string; from: string }> = {
  transcript: {
    select: `t.conversation_id AS key, t.sha AS version, t.ts AS ts, t.sha AS sha, t.size AS size, '' AS text,
      (SELECT s.agent FROM view_sessions s WHERE s.project_id = t.project_id AND s.conversation_id = t.conversation_id) AS agent`,
    from: stale('view_transcripts', 'transcript', 't.conversation_id', 't.sha'),
  },
  summary: {
    select: "t.conversation_id AS key, t.ts || ':' || length(t.summary) AS version, t.ts AS ts, t.summary AS text",
    from: stale('view_summaries', 'summary', 't.conversation_id', "t.ts || ':' || length(t.summary)"),
  },
  commit: {
    select: 't.sha AS key, t.subject AS version, t.committed_at AS ts, t.subject AS text',
    from: stale('view_commit_names', 'commit', 't.sha', 't.subject'),
  },
};

function stale(table: string, kind: DocKind, key: string, version: string): string {
  return `${table} t WHERE t.project_id = ? AND NOT EXISTS (SELECT 1 FROM search_docs d
    WHERE d.project_id = t.project_id AND d.kind = '${kind}' AND d.key = ${key} AND d.version = ${version})`;
}
const ORPHANS: Record<DocKind, string> = {
  transcript: 'SELECT 1 FROM view_transcripts t WHERE t.project_id = d.project_id AND t.conversation_id = d.key',
  summary: 'SELECT 1 FROM view_summaries t WHERE t.project_id = d.project_id AND t.conversation_id = d.key',
  commit: 'SELECT 1 FROM view_commit_names t WHERE t.project_id = d.project_id AND t.sha = d.key',
};
const KINDS = Object.keys(SOURCES) as DocKind[];

/** Sources whose document is missing or older than they are: what a search cannot find yet. */
export async function searchPending(storage: TraceStorage, projectId: number): Promise<number> {
  let pending = 0;
  for (const kind of KINDS) {
    const source = SOURCES[kind];
    const [row] = await storage.query<{ n: number }>(`SELECT COUNT(*) AS n FROM ${source.from}`, [projectId]);
    pending += Number(row?.n ?? 0);
  }
  return pending;
}

/** Makes every stale document of the project (until `stopped` says so) and removes the orphans; returns how many were made. */
export async function updateSearchIndex(storage: TraceStorage, projectId: number, stopped = () => false): Promise<number> {
  let made = 0;
  for (const kind of KINDS) {
    await removeOrphans(storage, projectId, kind);
    const source = SOURCES[kind];
    while (!stopped()) {
      const stale = (
        await storage.query<{
          key: string;
          version: string;
          ts: string | null;
          sha?: string;
          size?: number;
          agent?: string | null;
          text: string;
        }>(`SELECT ${source.select} FROM ${source.from} ORDER BY 1 LIMIT ?`, [projectId, PAGE])
      ).map((row): Stale => ({
        kind,
        key: row.key,
        version: String(row.version),
        ts: row.ts || null,
        ...(kind === 'transcript'
          ? { transcript: { sha: row.sha!, size: Number(row.size), agent: row.agent ?? null } }
          : { text: row.text }),
      }));
      if (stale.length === 0) break;
      for (let at = 0; at < stale.length && !stopped(); at += BATCH) {
        const batch = stale.slice(at, at + BATCH);
        await writeDocs(storage, projectId, await readDocs(storage, projectId, batch));
        made += batch.length;
      }
    }
  }
  // The planner's figures for the GIN index and the anti-joins above come from statistics: after many new documents, gathered now.
  if (storage.backend === 'postgres' && made >= ANALYZE_AFTER) await storage.execute('ANALYZE search_docs');
  return made;
}

/** Documents whose source is gone (a fold after a removal, a transcript expired): out of the index. */
async function removeOrphans(storage: TraceStorage, projectId: number, kind: DocKind): Promise<void> {
  const rows = await storage.query<{ id: number }>(
    `SELECT d.id FROM search_docs d WHERE d.project_id = ? AND d.kind = ? AND NOT EXISTS (${ORPHANS[kind]})`,
    [projectId, kind],
  );
  if (rows.length === 0) return;
  await storage.transaction(async (tx) =>
    deleteDocs(
      tx,
      storage.backend,
      rows.map((row) => Number(row.id)),
    ),
  );
}

/**
 * In a removal's transaction: the documents of these conversations (their
 * transcripts and summaries) and commits leave the index. What is left of them
 * (a summary when only the transcript went) is indexed again after the next fold.
 */
export async function dropDocuments(
  tx: SqlTransaction,
  backend: TraceStorage['backend'],
  projectId: number,
  conversations: readonly string[],
  commits: readonly string[],
): Promise<void> {
  const ids: number[] = [];
  for (const [keys, kinds] of [
    [conversations, ['transcript', 'summary']],
    [commits, ['commit']],
  ] as const) {
    for (let at = 0; at < keys.length; at += 400) {
      const chunk = keys.slice(at, at + 400);
      const rows = await tx.query<{ id: number }>(
        `SELECT id FROM search_docs WHERE project_id = ? AND kind IN (${kinds.map(() => '?').join(', ')}) AND key IN (${chunk
          .map(() => '?')
          .join(', ')})`,
        [projectId, ...kinds, ...chunk],
      );
      ids.push(...rows.map((row) => Number(row.id)));
    }
  }
  await deleteDocs(tx, backend, ids);
}

async function deleteDocs(tx: SqlTransaction, backend: TraceStorage['backend'], ids: readonly number[]): Promise<void> {
  for (let at = 0; at < ids.length; at += 400) {
    const chunk = ids.slice(at, at + 400);
    const marks = chunk.map(() => '?').join(', ');
    if (backend === 'sqlite') await tx.execute(`DELETE FROM search_fts WHERE rowid IN (${marks})`, chunk);
    await tx.execute(`DELETE FROM search_docs WHERE id IN (${marks})`, chunk);
  }
}

/** A batch's documents, transcripts read a few at once (their blobs come from the database or the disk). */
async function readDocs(storage: TraceStorage, projectId: number, batch: readonly Stale[]): Promise<Doc[]> {
  const docs: Doc[] = new Array(batch.length);
  let next = 0;
  const worker = async () => {
    while (next < batch.length) {
      const index = next++;
      const stale = batch[index]!;
      const body = stale.transcript ? await transcriptText(storage, projectId, stale.transcript) : (stale.text ?? '');
      docs[index] = { kind: stale.kind, key: stale.key, version: stale.version, ts: stale.ts, body: clean(body) };
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_AT_ONCE, batch.length) }, worker));
  return docs;
}

/**
 * What of a transcript is searched: the person's prompts, the assistant's
 * messages and the paths its tool calls wrote, in order, one item a line. A
 * transcript no reader knows, or whose blob is gone, gives no text (and is not
 * read again until a new snapshot comes).
 */
async function transcriptText(
  storage: TraceStorage,
  projectId: number,
  transcript: { sha: string; size: number; agent: string | null },
): Promise<string> {
  const agent = transcript.agent !== null && AGENT_ID.test(transcript.agent) ? transcript.agent : null;
  const source = streamSource(transcript.size, async (start) => (await storage.readBlob(projectId, transcript.sha, start))?.stream);
  try {
    const format = agent === null ? await recognizeFormat(source) : await transcriptFormat(agent);
    if (!format) return '';
    const parts: string[] = [];
    let length = 0;
    for await (const item of readItems(source, format)) {
      const text =
        item.kind === 'message' && (item.role === 'person' || item.role === 'assistant')
          ? item.text
          : item.kind === 'tool_call'
            ? item.files.join('\n')
            : '';
      if (text === '') continue;
      parts.push(text);
      length += text.length + 1;
      if (length >= DOC_TEXT_MAX) break;
    }
    return parts.join('\n');
  } catch {
    return '';
  }
}

/**
 * No NUL (PostgreSQL's text refuses it) nor the two characters that mark a
 * match in a snippet (team/search.ts), at most DOC_TEXT_MAX characters.
 */
function clean(text: string): string {
  let body = text.replaceAll('\0', ' ').replaceAll('\u0002', ' ').replaceAll('\u0003', ' ');
  if (body.length > DOC_TEXT_MAX) {
    body = body.slice(0, DOC_TEXT_MAX);
    if (/[\uD800-\uDBFF]$/.test(body)) body = body.slice(0, -1);
  }
  // A lone surrogate is no character: PostgreSQL and FTS5 would each read it differently.
  return body.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

async function writeDocs(storage: TraceStorage, projectId: number, docs: readonly Doc[]): Promise<void> {
  if (storage.backend === 'sqlite') {
    await storage.transaction(async (tx) => {
      for (const doc of docs) {
        const [known] = await tx.query<{ id: number }>('SELECT id FROM search_docs WHERE project_id = ? AND kind = ? AND key = ?', [
          projectId,
          doc.kind,
          doc.key,
        ]);
        let id = known?.id;
        if (id === undefined) {
          const [made] = await tx.query<{ id: number }>(
            'INSERT INTO search_docs (project_id, kind, key, version, ts) VALUES (?, ?, ?, ?, ?) RETURNING id',
            [projectId, doc.kind, doc.key, doc.version, doc.ts],
          );
          id = made!.id;
        } else {
          await tx.execute('DELETE FROM search_fts WHERE rowid = ?', [id]);
          await tx.execute('UPDATE search_docs SET version = ?, ts = ? WHERE id = ?', [doc.version, doc.ts, id]);
        }
        await tx.execute('INSERT INTO search_fts (rowid, body) VALUES (?, ?)', [id, doc.body]);
      }
    });
    return;
  }
  // One statement for the batch (a round trip, and the database's to_tsvector for all of them); when
  // it fails (a tsvector over its limit), each document alone, so the others are written anyway.
  try {
    await storage.execute(
      `INSERT INTO search_docs (project_id, kind, key, version, ts, body, tsv)
       SELECT ?, kind, key, version, ts, body, to_tsvector('${TS_CONFIG}', words)
       FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[]) AS doc (kind, key, version, ts, body, words)
       ON CONFLICT (project_id, kind, key) DO UPDATE SET version = excluded.version, ts = excluded.ts, body = excluded.body, tsv = excluded.tsv`,
      [
        projectId,
        docs.map((doc) => doc.kind),
        docs.map((doc) => doc.key),
        docs.map((doc) => doc.version),
        docs.map((doc) => doc.ts),
        docs.map((doc) => doc.body),
        docs.map((doc) => searchWords(doc.body)),
      ],
    );
  } catch {
    for (const doc of docs) await writePostgresDoc(storage, projectId, doc);
  }
}

/**
 * One document per statement: a text whose tsvector would pass PostgreSQL's
 * 1 MiB limit (many distinct words, such as ids) is indexed by its first half,
 * and so on, rather than failing the batch.
 */
async function writePostgresDoc(storage: TraceStorage, projectId: number, doc: Doc): Promise<void> {
  let body = doc.body;
  for (;;) {
    try {
      await storage.execute(
        `INSERT INTO search_docs (project_id, kind, key, version, ts, body, tsv) VALUES (?, ?, ?, ?, ?, ?, to_tsvector('${TS_CONFIG}', ?))
         ON CONFLICT (project_id, kind, key) DO UPDATE SET version = excluded.version, ts = excluded.ts, body = excluded.body, tsv = excluded.tsv`,
        [projectId, doc.kind, doc.key, doc.version, doc.ts, body, searchWords(body)],
      );
      return;
    } catch (error) {
      // 54000 program_limit_exceeded: "string is too long for tsvector".
      if ((error as { code?: string }).code !== '54000' || body.length < 1000) throw error;
      body = clean(body.slice(0, Math.floor(body.length / 2)));
    }
  }
}

/** updateSearchIndex per project in the background, after each fold (project-refresher.ts). */
export function searchRefresher(storage: TraceStorage, log: () => FastifyBaseLogger): ProjectRefresher {
  return new ProjectRefresher(
    (projectId, stopped) => updateSearchIndex(storage, projectId, stopped),
    'team view search indexing failed',
    log,
  );
}
