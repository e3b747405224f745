import { ExitCode, TracerError } from '../core/errors.js';
import { RemoteSyncState } from './sync-state.js';
import type { FamilyDefinition } from '../kernel/families.js';
import type { Kernel } from '../kernel/kernel.js';
import { emptyReport, FamilyPush, type FamilyPushReport } from './push-family.js';
import type { FamilyPlan, SyncSession } from '../kernel/types.js';

/**
 * A push as a graph the kernel runs: the pre-flight, then every registered family
 * in registration order (plugins.json order). Routes, blob handling and
 * fallbacks all come from plugins; this file names none of them.
 */
export interface PushReport {
  remote: string;
  url: string;
  dry_run: boolean;
  families: FamilyPushReport[];
  totals: { pending: number; sent: number; inserted: number; duplicates: number; failed: number; held: number };
}

export const PREFLIGHT_STEP = 'preflight';

/** Families `--only` may name: those that follow no other family. */
export function onlyChoices(kernel: Kernel): string[] {
  return kernel.families.filter((family) => kernel.familySync(family.name)?.follows === undefined).map((family) => family.name);
}

export function checkOnly(kernel: Kernel, only: string | undefined): void {
  if (only === undefined) return;
  const choices = onlyChoices(kernel);
  if (!choices.includes(only)) {
    throw new TracerError(
      'invalid_only',
      `--only takes one of ${choices.join(', ')}, not "${only}"; the families that follow them (e.g. conversations) go along.`,
      { exitCode: ExitCode.usage },
    );
  }
}

function selected(kernel: Kernel, family: FamilyDefinition, only: string | undefined): boolean {
  return only === undefined || family.name === only || kernel.familySync(family.name)?.follows === only;
}

export async function runPush(kernel: Kernel, session: SyncSession): Promise<PushReport> {
  const options = session.push ?? { full: false, dryRun: session.dryRun };
  const { hooks } = kernel;
  hooks.progress.call({ type: 'step-start', step: PREFLIGHT_STEP });
  try {
    await hooks.preflight.promise(session);
  } catch (error) {
    hooks.progress.call({
      type: 'step-end',
      step: PREFLIGHT_STEP,
      status: 'failed',
      summary: error instanceof Error ? error.message : String(error),
    });
    throw error;
  }
  hooks.progress.call({
    type: 'step-end',
    step: PREFLIGHT_STEP,
    status: 'done',
    summary: `${session.remote.target.org_slug}/${session.remote.target.project_slug}`,
  });

  const state = await RemoteSyncState.load(session.project.dir, session.remote.name, session.remote.record.url);
  const report: PushReport = {
    remote: session.remote.name,
    url: session.remote.target.url,
    dry_run: session.dryRun,
    families: [],
    totals: { pending: 0, sent: 0, inserted: 0, duplicates: 0, failed: 0, held: 0 },
  };
  try {
    for (const family of kernel.families) {
      const sync = kernel.familySync(family.name)!;
      hooks.progress.call({ type: 'step-start', step: family.name });
      if (!selected(kernel, family, options.only)) {
        report.families.push({ ...emptyReport(family.name), status: 'skipped', reason: `not selected by --only ${options.only}` });
        hooks.progress.call({ type: 'step-end', step: family.name, status: 'skipped', summary: 'not selected' });
        continue;
      }
      let plan: FamilyPlan = { family, since: options.since, filters: [] };
      plan = await hooks.beforeFamily.promise(plan, session);
      if (plan.skip) {
        report.families.push({ ...emptyReport(family.name), status: 'skipped', reason: plan.skip });
        hooks.progress.call({ type: 'step-end', step: family.name, status: 'skipped', summary: plan.skip });
        continue;
      }
      let familyReport: FamilyPushReport;
      try {
        familyReport = await new FamilyPush(kernel, session, state, sync, plan).run();
      } catch (error) {
        hooks.progress.call({
          type: 'step-end',
          step: family.name,
          status: 'failed',
          summary: error instanceof Error ? error.message : String(error),
        });
        throw error;
      }
      report.families.push(familyReport);
      hooks.progress.call({
        type: 'step-end',
        step: family.name,
        status: familyReport.status,
        summary: describeFamilyPush(familyReport, session.dryRun),
      });
    }
  } finally {
    // One forced save for the whole push: each save rewrites the whole manifest.
    await state.flush(true);
  }
  for (const family of report.families) {
    report.totals.pending += family.pending;
    report.totals.sent += family.sent;
    report.totals.inserted += family.inserted;
    report.totals.duplicates += family.duplicates;
    report.totals.failed += family.failed;
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
  if (report.already_synced > 0) parts.push(`${report.already_synced} already synced`);
  for (const [reason, count] of Object.entries(report.held)) parts.push(`${count} ${reason.replace(/_/g, ' ')}`);
  if (report.before_since > 0) parts.push(`${report.before_since} before --since`);
  if (report.blobs_uploaded > 0) parts.push(`${report.blobs_uploaded} blob${report.blobs_uploaded === 1 ? '' : 's'} uploaded`);
  if (report.inline_fallbacks > 0) parts.push(`${report.inline_fallbacks} sent inline (no blob route)`);
  if (report.invalid > 0) parts.push(`${report.invalid} invalid`);
  if (report.failed > 0) parts.push(`${report.failed} refused, see push-errors.log`);
  return parts.join(', ');
}
