// The team view after rows were forgotten or expired (issue 31): what the view
// derived from them goes, in the same transaction. The view's rows of every
// conversation and commit they touched are deleted, then what is left of those
// conversations and commits (rows the view had already taken in) is folded in
// again, so the figures are those of the remaining rows; rows not folded yet are
// taken in by the next fold as usual.
import type { RemovedRow } from '../privacy/removal.js';
import type { SqlTransaction, TraceStorage } from '../storage/types.js';
import { dropDocuments } from './search-index.js';
import { foldPlan, type ItemRow } from './derive.js';
import { valuesInserts } from './fold-sql.js';

/** The view's tables of a conversation, by the family they are derived from (derive.ts). */
const DERIVED: Record<string, string[]> = {
  traces: ['view_sessions', 'view_session_models', 'view_session_files', 'view_session_traces'],
  summaries: ['view_summaries'],
  conversations: ['view_transcripts'],
};
const COMMIT_TABLES = [
  'view_commits',
  'view_commit_parts',
  'view_commit_sessions',
  'view_commit_names',
  'view_commit_traces',
  'view_commit_parents',
];

export async function refoldAfterRemoval(
  tx: SqlTransaction,
  projectId: number,
  rows: readonly RemovedRow[],
  backend: TraceStorage['backend'],
): Promise<void> {
  // The search index (issue 32) forgets every document of what was removed, folded in or not;
  // what remains of those conversations and commits is indexed again after the next fold.
  const touched = [...new Set(rows.map((row) => row.conversation_id).filter((id): id is string => Boolean(id)))];
  const touchedCommits = [
    ...new Set(rows.flatMap((row) => (row.family === 'ledgers' || row.family === 'commit-links' ? commitOf(row.body) : []))),
  ];
  await dropDocuments(tx, backend, projectId, touched, touchedCommits);
  const [progress] = await tx.query<{ seq: number }>('SELECT seq FROM view_progress WHERE project_id = ?', [projectId]);
  const watermark = Number(progress?.seq ?? 0);
  const folded = rows.filter((row) => row.seq <= watermark);
  if (folded.length === 0) return;
  await tx.execute('UPDATE view_progress SET folded = folded - ?, traces = traces - ? WHERE project_id = ?', [
    folded.length,
    folded.filter((row) => row.family === 'traces').length,
    projectId,
  ]);
  const conversations = [...new Set(folded.map((row) => row.conversation_id).filter((id): id is string => Boolean(id)))];
  const commits = [
    ...new Set(folded.flatMap((row) => (row.family === 'ledgers' || row.family === 'commit-links' ? commitOf(row.body) : []))),
  ];
  // Only what the removed families fed: a batch of expired transcripts touches view_transcripts alone.
  const removedFamilies = [...new Set(folded.map((row) => row.family))].filter((family) => DERIVED[family]);
  const tables = removedFamilies.flatMap((family) => DERIVED[family]!);
  for (const ids of chunks(conversations))
    for (const table of tables)
      await tx.execute(`DELETE FROM ${table} WHERE project_id = ? AND conversation_id IN (${marks(ids)})`, [projectId, ...ids]);
  for (const shas of chunks(commits))
    for (const table of COMMIT_TABLES)
      await tx.execute(`DELETE FROM ${table} WHERE project_id = ? AND sha IN (${marks(shas)})`, [projectId, ...shas]);

  const remaining: ItemRow[] = [];
  if (removedFamilies.length > 0)
    for (const ids of chunks(conversations))
      remaining.push(
        ...(await tx.query<ItemRow>(
          `SELECT seq, family, body, pushed_by FROM items WHERE project_id = ? AND seq <= ? AND conversation_id IN (${marks(ids)})
           AND family IN (${marks(removedFamilies)})`,
          [projectId, watermark, ...ids, ...removedFamilies],
        )),
      );
  for (const sha of commits)
    remaining.push(
      ...(await tx.query<ItemRow>(
        `SELECT seq, family, body, pushed_by FROM items WHERE project_id = ? AND seq <= ? AND family IN ('ledgers', 'commit-links') AND body LIKE ?`,
        [projectId, watermark, `%"commit":"${sha}"%`],
      )),
    );
  if (remaining.length === 0) return;
  const unique = [...new Map(remaining.map((row) => [Number(row.seq), { ...row, seq: Number(row.seq) }])).values()].sort(
    (a, b) => a.seq - b.seq,
  );
  const plan = foldPlan(projectId, unique);
  const refolded = new Set([...tables, ...(commits.length > 0 ? COMMIT_TABLES : [])]);
  for (const statement of valuesInserts({ ...plan, inserts: plan.inserts.filter((insert) => refolded.has(insert.table)) }))
    await tx.execute(statement.sql, statement.params);
}

function commitOf(body: string): string[] {
  try {
    const commit = (JSON.parse(body) as { commit?: unknown }).commit;
    return typeof commit === 'string' && /^[0-9a-f]{40,64}$/.test(commit) ? [commit] : [];
  } catch {
    return [];
  }
}

const marks = (values: readonly unknown[]) => values.map(() => '?').join(', ');

function* chunks<T>(values: readonly T[], size = 400): Generator<T[]> {
  for (let start = 0; start < values.length; start += size) yield values.slice(start, start + size);
}
