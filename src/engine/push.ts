import type { RegisteredFamily } from '../kernel/families.js';
import type { Kernel } from '../kernel/kernel.js';
import type { PushOptions, SyncSession } from '../kernel/types.js';
import { inStep } from './progress.js';
import { emptyReport, FamilyPush, type FamilyPushReport } from './push-family.js';
import { RemoteSyncState } from './sync-state.js';

// A push: the pre-flight, then every registered family in registration order
// (plugins.json order). Transport, blob handling and fallbacks all come from
// plugins through the kernel's hooks; this file names none of them.

export interface PushReport {
  remote: string;
  url: string;
  dry_run: boolean;
  families: FamilyPushReport[];
  /**
   * Every row read is in exactly one of: sent, already synced, held back, before
   * --since, invalid, failed. A push that exits 0 has left none unaccounted for.
   */
  totals: {
    pending: number;
    sent: number;
    inserted: number;
    duplicates: number;
    failed: number;
    held: number;
    invalid: number;
    before_since: number;
  };
}

export const PREFLIGHT_STEP = 'preflight';

function selected(family: RegisteredFamily, only: string | undefined): boolean {
  return only === undefined || family.name === only || family.follows === only;
}

async function pushFamily(
  kernel: Kernel,
  session: SyncSession,
  state: RemoteSyncState,
  family: RegisteredFamily,
  options: PushOptions,
): Promise<FamilyPushReport> {
  if (!selected(family, options.only))
    return { ...emptyReport(family.name), status: 'skipped', reason: `not selected by --only ${options.only}` };
  const plan = await kernel.hooks.beforeFamily.promise({ family, since: options.since, filters: [], rewrites: [] }, session);
  if (plan.skip) return { ...emptyReport(family.name), status: 'skipped', reason: plan.skip };
  return new FamilyPush(kernel, session, state, plan).run();
}

export async function runPush(kernel: Kernel, session: SyncSession): Promise<PushReport> {
  const options: PushOptions = session.push ?? { full: false, dryRun: session.dryRun };
  const { hooks } = kernel;
  const target = `${session.remote.target.org_slug}/${session.remote.target.project_slug}`;
  await inStep(
    kernel,
    PREFLIGHT_STEP,
    () => hooks.preflight.promise(session),
    () => ({ status: 'done', summary: target }),
  );

  if (!session.dryRun) await hooks.beforeTransfer.promise(session);
  const state = await RemoteSyncState.load(session.project.dir, session.remote.name, session.remote.record.url);
  const report: PushReport = {
    remote: session.remote.name,
    url: session.remote.target.url,
    dry_run: session.dryRun,
    families: [],
    totals: { pending: 0, sent: 0, inserted: 0, duplicates: 0, failed: 0, held: 0, invalid: 0, before_since: 0 },
  };
  try {
    for (const family of kernel.families) {
      const familyReport = await inStep(
        kernel,
        family.name,
        () => pushFamily(kernel, session, state, family, options),
        (result) => ({
          status: result.status === 'skipped' ? 'skipped' : 'done',
          summary:
            result.status === 'skipped' && !selected(family, options.only) ? 'not selected' : describeFamilyPush(result, session.dryRun),
        }),
      );
      report.families.push(familyReport);
    }
  } finally {
    // One forced save for the whole push: each save rewrites the whole manifest.
    await state.flush(true);
  }
  if (!session.dryRun) await hooks.afterTransfer.promise(session);
  for (const family of report.families) {
    report.totals.pending += family.pending;
    report.totals.sent += family.sent;
    report.totals.inserted += family.inserted;
    report.totals.duplicates += family.duplicates;
    report.totals.failed += family.failed;
    report.totals.invalid += family.invalid;
    report.totals.before_since += family.before_since;
    report.totals.held += Object.values(family.held).reduce((sum, count) => sum + count, 0);
  }
  return report;
}

/** One line per family, the same in plain output and in the TTY graph. */
export function describeFamilyPush(report: FamilyPushReport, dryRun: boolean): string {
  if (report.status === 'skipped') return `skipped (${report.reason})`;
  const parts: string[] = [];
  if (dryRun) parts.push(`${report.pending} to push`);
  else
    parts.push(
      report.sent === 0 ? 'nothing to push' : `${report.sent} pushed (${report.inserted} new, ${report.duplicates} already there)`,
    );
  if (report.forgotten > 0) parts.push(`${report.forgotten} forgotten on the remote, not stored`);
  if (report.already_synced > 0) parts.push(`${report.already_synced} already synced`);
  for (const [reason, count] of Object.entries(report.held)) parts.push(`${count} ${reason.replace(/_/g, ' ')}`);
  if (report.before_since > 0) parts.push(`${report.before_since} before --since`);
  if (report.blobs_uploaded > 0) parts.push(`${report.blobs_uploaded} blob${report.blobs_uploaded === 1 ? '' : 's'} uploaded`);
  if (report.inline_fallbacks > 0) parts.push(`${report.inline_fallbacks} sent inline (no blob route)`);
  if (report.invalid > 0) parts.push(`${report.invalid} invalid`);
  if (report.failed > 0) parts.push(`${report.failed} refused, see push-errors.log`);
  return parts.join(', ');
}
