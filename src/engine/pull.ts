// A pull: every registered family, page by page from the transport, deduplicated
// against the local store by content id, ids of pulled rows verified before they
// are appended, blob bytes verified before they are renamed into the cache. The
// cursor is saved only after the page's rows are written, so an interrupted pull
// resumes where it stopped.
import { contentId, SHA256_HEX, verifiedLine } from '../core/content-id.js';
import { ExitCode, TracerError } from '../core/errors.js';
import type { FamilyDefinition, RegisteredFamily } from '../kernel/families.js';
import type { Kernel } from '../kernel/kernel.js';
import { isFeatureMissing, isItemsRefused, type PageAnswer } from '../kernel/transport.js';
import type { FamilyStore, SyncSession } from '../kernel/types.js';
import { pathExists } from '../files/index.js';
import { writeVerifiedBlob } from './blob-file.js';
import { mapLimited, outcomeOf, unwrap } from './concurrency.js';
import { storeOf } from './family-store.js';
import { inStep, stepAdvanced } from './progress.js';
import { recordProblem } from './push-family.js';
import { sentAsKeys } from './sent-as.js';
import { RemoteSyncState } from './sync-state.js';

export interface FamilyPullReport {
  family: string;
  status: 'done' | 'skipped';
  reason?: string;
  pages: number;
  received: number;
  inserted: number;
  duplicates: number;
  invalid: number;
  /** Rows whose bytes could not be fetched; they come again on the next pull. */
  failed: number;
  blobs_fetched: number;
}

export interface PullReport {
  remote: string;
  url: string;
  dry_run: boolean;
  since?: string;
  families: FamilyPullReport[];
  totals: { received: number; inserted: number; duplicates: number; invalid: number; failed: number };
}

export async function runPull(kernel: Kernel, session: SyncSession, since?: string): Promise<PullReport> {
  if (!session.dryRun) await kernel.hooks.beforeTransfer.promise(session);
  const state = await RemoteSyncState.load(session.project.dir, session.remote.name, session.remote.record.url);
  const report: PullReport = {
    remote: session.remote.name,
    url: session.remote.target.url,
    dry_run: session.dryRun,
    since,
    families: [],
    totals: { received: 0, inserted: 0, duplicates: 0, invalid: 0, failed: 0 },
  };
  try {
    for (const family of kernel.families) {
      const familyReport = await inStep(
        kernel,
        family.name,
        async () => {
          try {
            return await pullFamily(kernel, session, state, family, since);
          } finally {
            // Not forced: one forced save after the last family (each save rewrites the whole manifest).
            if (!session.dryRun) await state.flush();
          }
        },
        (result) => ({ status: result.status, summary: describeFamilyPull(result, session.dryRun) }),
      );
      report.families.push(familyReport);
      if (familyReport.status === 'done')
        await kernel.hooks.afterPull.promise({ family, received: familyReport.received, inserted: familyReport.inserted }, session);
    }
  } finally {
    if (!session.dryRun) await state.flush(true);
  }
  if (!session.dryRun) await kernel.hooks.afterTransfer.promise(session);
  for (const family of report.families) {
    report.totals.received += family.received;
    report.totals.inserted += family.inserted;
    report.totals.duplicates += family.duplicates;
    report.totals.invalid += family.invalid;
    report.totals.failed += family.failed;
  }
  return report;
}

async function pullFamily(
  kernel: Kernel,
  session: SyncSession,
  state: RemoteSyncState,
  family: RegisteredFamily,
  since: string | undefined,
): Promise<FamilyPullReport> {
  const report: FamilyPullReport = {
    family: family.name,
    status: 'done',
    pages: 0,
    received: 0,
    inserted: 0,
    duplicates: 0,
    invalid: 0,
    failed: 0,
    blobs_fetched: 0,
  };
  const store = storeOf(family, session.project.dir);
  if (!session.dryRun) await store.recover?.((warning) => session.warn(warning));
  // What this project pushed as a rewritten copy (a redacted one) is here already, as the record it came from.
  const local = await sentAsKeys(session.project.dir, family.name);
  for await (const record of store.records((warning) => session.warn(warning))) {
    const key = store.keyOf(record);
    if (key) local.add(key);
  }
  // --since reads a filtered stream: its position must not become the stored cursor.
  let cursor = since === undefined ? state.cursor(family.name) : undefined;
  let keepCursor = since === undefined && !session.dryRun;
  const { transport } = session;
  // A page's outcome is held from the moment it is asked for and read in its turn, where a
  // failure stops the pull before the cursor passes it; a page asked for ahead of a pull
  // that fails meanwhile is simply never read.
  const fetchPage = (after: string | undefined) => outcomeOf(transport.page(family, { after, limit: transport.limits.pageSize, since }));
  let request = fetchPage(cursor);
  for (;;) {
    let page: PageAnswer;
    try {
      page = unwrap(await request);
    } catch (error) {
      if (!isFeatureMissing(error)) throw error;
      const fallback = await kernel.hooks.routeMissing.promise({ family, feature: error.feature, where: error.where }, session);
      if (!fallback) {
        throw new TracerError(
          'route_unsupported',
          `${error.message}; no enabled plugin falls back, so the pull stops until the service is upgraded.`,
          {
            exitCode: ExitCode.failure,
          },
        );
      }
      if (fallback.warning) session.warn(fallback.warning);
      return { ...report, status: 'skipped', reason: `the remote has no ${error.where}` };
    }
    report.pages += 1;
    const next = page.hasMore && page.next && page.next !== cursor ? page.next : undefined;
    // The service reads the next page while this one is checked and written.
    if (next) {
      request = fetchPage(next);
      await transport.yieldToRequests();
    }
    const accepted: AcceptedRow[] = [];
    for (const [index, item] of page.items.entries()) {
      report.received += 1;
      const row = await acceptRow(session, state, family, store, item, page.texts?.[index], local, report);
      if (row === undefined) continue;
      local.add(row.key);
      accepted.push(row);
    }
    // Blob rows' bytes, a few at a time: one is read by the service while another is hashed and synced to disk.
    const placed =
      family.blob && !session.dryRun
        ? await mapLimited(accepted, BLOB_PLACEMENTS, (row) => placeBytes(kernel, session, family, store, row.record, report))
        : accepted.map(() => true);
    const fresh: Record<string, unknown>[] = [];
    const lines: (string | undefined)[] = [];
    for (const [index, row] of accepted.entries()) {
      if (!placed[index]) {
        state.delete(family.manifestKey, row.key);
        local.delete(row.key);
        report.failed += 1;
        keepCursor = false; // this row must come again next time
        continue;
      }
      fresh.push(stripInline(family, row.record));
      lines.push(row.line);
    }
    report.inserted += fresh.length;
    if (!session.dryRun) {
      await store.append(fresh, lines);
      if (keepCursor && page.next) state.setCursor(family.name, page.next);
      await state.flush();
    }
    stepAdvanced(kernel, family.name, report.received, `${report.inserted} new`);
    if (!next) break;
    cursor = next;
  }
  return report;
}

/** How many blob rows of a page have their bytes fetched (or decoded) and written at once. */
const BLOB_PLACEMENTS = 3;

interface AcceptedRow {
  key: string;
  record: Record<string, unknown>;
  /** The row as the line to store, when its id was checked from that text. */
  line?: string;
}

/** Decides one pulled row: accepted when it is valid and new here, undefined when it is a duplicate or invalid. */
async function acceptRow(
  session: SyncSession,
  state: RemoteSyncState,
  family: RegisteredFamily,
  store: FamilyStore,
  item: unknown,
  text: string | undefined,
  local: Set<string>,
  report: FamilyPullReport,
): Promise<AcceptedRow | undefined> {
  const record = typeof item === 'object' && item !== null && !Array.isArray(item) ? (item as Record<string, unknown>) : undefined;
  const key = record && store.keyOf(record);
  const checked = !record
    ? 'it is not a JSON object'
    : !key
      ? 'it has no identity'
      : (recordProblem(family, record) ?? checkId(family, record, text));
  const problem = typeof checked === 'string' ? checked : undefined;
  if (problem) {
    report.invalid += 1;
    session.warn({
      code: 'invalid_pulled_record',
      message: `A ${family.name} row from remote "${session.remote.name}" is not stored: ${problem}.`,
    });
    return undefined;
  }
  await state.loadManifests();
  if (!session.dryRun) state.add(family.manifestKey, key!);
  if (local.has(key!)) {
    report.duplicates += 1;
    return undefined;
  }
  return { key: key!, record: record!, line: typeof checked === 'object' ? checked.line : undefined };
}

/** Puts a blob row's bytes in the cache: decoded from the row, or fetched, verified either way. */
async function placeBytes(
  kernel: Kernel,
  session: SyncSession,
  family: RegisteredFamily,
  store: FamilyStore,
  record: Record<string, unknown>,
  report: FamilyPullReport,
): Promise<boolean> {
  const blob = family.blob!;
  const sha = String(record[blob.shaMember]);
  const path = store.blobPath!(sha);
  const inline = record[blob.inlineMember];
  try {
    if (typeof inline === 'string') {
      await writeVerifiedBlob([Buffer.from(inline, 'base64')], sha, path);
      return true;
    }
    if (await pathExists(path)) return true;
    const fetched = await kernel.hooks.fetchBlob.promise({ sha256: sha, size: Number(record[blob.sizeMember]), path, family }, session);
    if (!fetched) {
      session.warn({
        code: 'blob_fetch_unsupported',
        message: `No enabled plugin fetches blobs, so ${sha} of ${family.name} stays unpulled; enable a plugin that does (see tracer plugins).`,
      });
      return false;
    }
    report.blobs_fetched += 1;
    return true;
  } catch (error) {
    // Bytes that did not match, or a remote that refused this one blob: the row comes again next pull.
    if (isItemsRefused(error) || (error instanceof TracerError && error.code === 'sha_mismatch')) {
      session.warn({ code: error.code, message: `The bytes of ${sha} (${family.name}) were not stored: ${error.message}` });
      return false;
    }
    throw error;
  }
}

/** What is wrong with the row's id; else, when the fast check gave it, the row's JSON line. */
function checkId(family: FamilyDefinition, record: Record<string, unknown>, text: string | undefined): string | { line?: string } {
  if (family.idMember === null) {
    const sha = family.blob ? record[family.blob.shaMember] : undefined;
    return family.blob && !(typeof sha === 'string' && SHA256_HEX.test(sha)) ? `${family.blob.shaMember} is not a SHA-256` : {};
  }
  // Rows tracer wrote are checked the fast way, which serializes them: that line is what gets stored.
  // (A blob family stores its rows without the inline bytes, so not that line.)
  const verified = verifiedLine(record, family.idMember, text);
  if (verified !== undefined) return { line: family.blob ? undefined : verified };
  const claimed = record[family.idMember];
  let actual: string;
  try {
    actual = contentId(record, family.idMember);
  } catch (error) {
    // A row with no canonical form (a lone surrogate, nesting past the stack) is one bad row, not a failed pull.
    return `it has no RFC 8785 canonical form, so its ${family.idMember} cannot be checked (${(error as Error).message.replace(/\.$/, '')})`;
  }
  return claimed === actual
    ? {}
    : `its ${family.idMember} ${String(claimed).slice(0, 16)}… is not its content id ${actual.slice(0, 16)}… (content_id_mismatch)`;
}

function stripInline(family: FamilyDefinition, record: Record<string, unknown>): Record<string, unknown> {
  if (!family.blob) return record;
  const { [family.blob.inlineMember]: _inline, ...rest } = record;
  return rest;
}

export function describeFamilyPull(report: FamilyPullReport, dryRun: boolean): string {
  if (report.status === 'skipped') return `skipped (${report.reason})`;
  const parts = [
    report.received === 0
      ? 'nothing new on the remote'
      : `${report.received} received, ${report.inserted} ${dryRun ? 'would be added' : 'added'}`,
  ];
  if (report.duplicates > 0) parts.push(`${report.duplicates} already here`);
  if (report.blobs_fetched > 0) parts.push(`${report.blobs_fetched} blob${report.blobs_fetched === 1 ? '' : 's'} fetched`);
  if (report.invalid > 0) parts.push(`${report.invalid} invalid`);
  if (report.failed > 0) parts.push(`${report.failed} left for the next pull`);
  return parts.join(', ');
}
