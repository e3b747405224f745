// A fold plan (derive.ts) written as SQL the way each backend takes it fastest,
// in `?` placeholders. SQLite: multi-row VALUES of at most 500 rows (it prepares
// each shape once and runs in-process, so a statement costs no round trip).
// PostgreSQL: one statement per table whatever the batch's size, each column sent
// as one typed array and spread by unnest(), so a batch is a dozen round trips and
// the server parses a short statement instead of thousands of placeholders.
import type { BulkInsert, FoldPlan } from './derive.js';

export interface Statement {
  sql: string;
  params: unknown[];
}

/** Rows per VALUES statement: well under SQLite's 32,766 parameters with any table here. */
const ROWS_PER_STATEMENT = 500;

/** A commit's rows that its newest ledger replaces whole (derive.ts `replacedParts`). */
const REPLACED_WHOLE = ['view_commit_parts', 'view_commit_traces', 'view_commit_parents'];

export function valuesStatements(plan: FoldPlan): Statement[] {
  return [...valuesInserts(plan), progressStatement(plan)];
}

/** The plan's deletes and inserts without its watermark (a re-fold after a removal, team/forget-view.ts). */
export function valuesInserts(plan: Omit<FoldPlan, 'progress'>): Statement[] {
  const statements: Statement[] = [];
  for (const shas of chunks(plan.replacedParts))
    for (const table of REPLACED_WHOLE)
      statements.push({
        sql: `DELETE FROM ${table} WHERE project_id = ? AND sha IN (${shas.map(() => '?').join(', ')})`,
        params: [plan.projectId, ...shas],
      });
  for (const insert of plan.inserts) {
    const names = Object.keys(insert.columns);
    const tuple = `(${names.map(() => '?').join(', ')})`;
    for (const rows of chunks(insert.rows)) {
      statements.push({
        sql: `INSERT INTO ${insert.table} (${names.join(', ')}) VALUES ${rows.map(() => tuple).join(', ')} ${insert.conflict}`,
        params: rows.flat(),
      });
    }
  }
  return statements;
}

export function arrayStatements(plan: FoldPlan): Statement[] {
  const statements: Statement[] = [];
  if (plan.replacedParts.length > 0)
    for (const table of REPLACED_WHOLE)
      statements.push({
        sql: `DELETE FROM ${table} WHERE project_id = ? AND sha = ANY(?::text[])`,
        params: [plan.projectId, plan.replacedParts],
      });
  for (const insert of plan.inserts) if (insert.rows.length > 0) statements.push(unnestInsert(insert));
  statements.push(progressStatement(plan));
  return statements;
}

function unnestInsert(insert: BulkInsert): Statement {
  const names = Object.keys(insert.columns);
  const arrays = Object.values(insert.columns).map((type) => `?::${type === 'int' ? 'bigint' : 'text'}[]`);
  return {
    sql: `INSERT INTO ${insert.table} (${names.join(', ')}) SELECT * FROM unnest(${arrays.join(', ')}) ${insert.conflict}`,
    params: names.map((_, column) => insert.rows.map((row) => row[column])),
  };
}

function progressStatement(plan: FoldPlan): Statement {
  const { seq, rows, traces, lastTs } = plan.progress;
  return {
    sql: `INSERT INTO view_progress (project_id, seq, folded, traces, last_ts) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (project_id) DO UPDATE SET seq = excluded.seq, folded = view_progress.folded + excluded.folded,
      traces = view_progress.traces + excluded.traces,
      last_ts = CASE WHEN view_progress.last_ts IS NULL OR excluded.last_ts > view_progress.last_ts THEN excluded.last_ts ELSE view_progress.last_ts END`,
    params: [plan.projectId, seq, rows, traces, lastTs],
  };
}

function* chunks<T>(items: readonly T[]): Generator<T[]> {
  for (let start = 0; start < items.length; start += ROWS_PER_STATEMENT) yield items.slice(start, start + ROWS_PER_STATEMENT);
}
