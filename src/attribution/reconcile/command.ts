// `tracer reconcile [<range>]`: the range checked and told as one of tracer's
// errors, and the report as text.
import { ExitCode, TracerError } from '../../core/errors.js';
import { GitCommandError, runGit } from '../../capture/ledger/git-exec.js';
import type { GitOptions } from '../git-read.js';
import type { LockHolder } from '../../store/file-lock.js';
import type { RedactionProblem } from '../../redact/types.js';
import { reconcile, type ReconcileReport } from './reconcile.js';

export interface ReconcileRangeQuery {
  projectDir: string;
  git: GitOptions;
  range?: string;
  limit?: number;
  dryRun: boolean;
  /** Told once a wait for the background reconcile lasts. */
  onWait?: (holder: LockHolder) => void;
  /** Redaction problems met on the commits' subjects (a refused team file): the command says them. */
  onProblem?: (problem: RedactionProblem) => void;
}

export async function reconcileRange(query: ReconcileRangeQuery): Promise<ReconcileReport> {
  const range = query.range ?? 'HEAD';
  if (range.trim() === '' || range.startsWith('-')) throw unknownRange(range);
  try {
    await runGit(['rev-list', '--max-count=1', range, '--'], query.git);
  } catch (error) {
    if (error instanceof GitCommandError) throw unknownRange(range, error);
    throw error;
  }
  return reconcile({
    projectDir: query.projectDir,
    git: query.git,
    revisions: [range],
    ...(query.limit === undefined ? {} : { limit: query.limit }),
    dryRun: query.dryRun,
    depth: 'full',
    retry: true,
    ...(query.onWait ? { onWait: query.onWait } : {}),
    ...(query.onProblem ? { onProblem: query.onProblem } : {}),
  });
}

function unknownRange(range: string, cause?: unknown): TracerError {
  return new TracerError(
    'unknown_range',
    `"${range}" is not a range of commits in this repository; pass A..B (for example ORIG_HEAD..HEAD) or a single revision.`,
    { exitCode: ExitCode.usage, cause },
  );
}

export function formatReconcile(report: ReconcileReport): string {
  const lines: string[] = [];
  const verb = report.dry_run ? 'would reconcile' : 'reconciled';
  for (const done of report.reconciled) {
    const { ai, human, mixed, unknown } = done.lines;
    const counts = [`${ai} ai`, `${human} human`, ...(mixed > 0 ? [`${mixed} mixed`] : []), ...(unknown > 0 ? [`${unknown} unknown`] : [])];
    const state = report.dry_run ? '' : done.written ? '' : ' (already recorded)';
    lines.push(
      `${done.commit.slice(0, 12)}  ${verb} by ${done.method} from ${done.sources.length} commit${done.sources.length === 1 ? '' : 's'}: ${counts.join(', ')}${state}`,
    );
  }
  if (report.examined === 0) lines.push('Every commit of the range has its ledger; nothing to reconcile.');
  else if (report.without_source.length > 0) {
    lines.push(
      `${report.without_source.length} commit${report.without_source.length === 1 ? '' : 's'} without a ledger came from no commit tracer knows; left as ${report.without_source.length === 1 ? 'it is' : 'they are'}.`,
    );
  }
  return `${lines.join('\n')}\n`;
}
