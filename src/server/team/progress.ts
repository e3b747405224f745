// How far the team view's tables are behind a project's pushed rows, in the
// portable SQL of TraceStorage.query. Each figure is one statement, so a fold
// committing meanwhile can never make `folded` and the rows behind disagree.
import type { TraceStorage } from '../storage/types.js';

export interface ViewProgress {
  /** Rows of the project the view has taken in. */
  folded: number;
  /** Every row of the project: folded ones and those still behind. */
  total: number;
}

const WATERMARK = 'coalesce((SELECT seq FROM view_progress WHERE project_id = ?), 0)';

export async function viewProgress(storage: TraceStorage, projectId: number): Promise<ViewProgress> {
  // `folded` is kept by the fold itself (migration 3): only the rows behind are counted here.
  const [row] = await storage.query<{ folded: number; behind: number }>(
    `SELECT coalesce((SELECT folded FROM view_progress WHERE project_id = ?), 0) AS folded,
       (SELECT COUNT(*) FROM items WHERE project_id = ? AND seq > ${WATERMARK}) AS behind`,
    [projectId, projectId, projectId],
  );
  const folded = row?.folded ?? 0;
  return { folded, total: folded + (row?.behind ?? 0) };
}

/** The rows not folded in yet, counted no further than `atMost` (a range of the (project_id, seq) index). */
export async function rowsBehind(storage: TraceStorage, projectId: number, atMost: number): Promise<number> {
  const [row] = await storage.query<{ n: number }>(
    `SELECT COUNT(*) AS n FROM (SELECT 1 FROM items WHERE project_id = ? AND seq > ${WATERMARK} LIMIT ?) behind`,
    [projectId, projectId, atMost],
  );
  return row?.n ?? 0;
}
