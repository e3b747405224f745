import { readFile } from 'node:fs/promises';
import { ExitCode, TracerError } from '../core/errors.js';
import { memberProblem } from '../core/member-checks.js';
import { isFeatureMissing, isItemsRefused, type FeatureMissing, type ItemsRefused } from '../kernel/transport.js';
import { AckedPrefix } from './acked-prefix.js';
import { hashFile } from './blob-file.js';
import { outcomeOf, unwrap, WorkWindow, type Outcome } from './concurrency.js';
import type { RemoteSyncState } from './sync-state.js';
import type { FamilyDefinition, RegisteredFamily } from '../kernel/families.js';
import type { Kernel } from '../kernel/kernel.js';
import { storeOf } from './family-store.js';
import { recordSentAs } from './sent-as.js';
import { stepAdvanced } from './progress.js';
import type { FamilyPlan, FamilyStore, SyncSession } from '../kernel/types.js';

/**
 * Three: the service works on one batch while the next waits in its socket, and
 * a third absorbs the client's own pauses (a manifest save, a collection) so
 * the queue never runs dry; memory stays at three request bodies. See
 * BENCHMARKS.md, "Requests in flight".
 */
export const MAX_REQUESTS_IN_FLIGHT = 3;
/** Rows of a store without a scan considered at once: a blob family's uploads overlap the hashing of its next files. */
const CONSIDERED_AT_ONCE = 3;
/** Where a blob family's uploaded shas are listed in sync-state.json. */
export const BLOB_MANIFEST_KEY = 'blob_shas';

export interface FamilyPushReport {
  family: string;
  status: 'done' | 'skipped' | 'failed';
  reason?: string;
  /** Local records read. */
  local: number;
  already_synced: number;
  /** Records this run sends (or, with --dry-run, would send). */
  pending: number;
  sent: number;
  inserted: number;
  duplicates: number;
  /** Sent, but the remote had forgotten them and kept none (they are removed here by the next tombstone sync). */
  forgotten: number;
  /** Held back by a beforeFamily filter, per reason (e.g. waiting_for_attribution). */
  held: Record<string, number>;
  /** Older than --since. */
  before_since: number;
  invalid: number;
  /** Left unsynced after an item-level refusal; see push-errors.log. */
  failed: number;
  blobs_uploaded: number;
  blobs_present: number;
  inline_fallbacks: number;
}

interface Outgoing {
  key: string;
  /**
   * The parsed row, kept only for a pointer row (a refused one is sent again with
   * its blob): parsed rows held across garbage collections cost the collector
   * more than parsing them did (BENCHMARKS.md, "Parsed rows kept for pointer
   * rows only").
   */
  item?: Record<string, unknown>;
  /** `item` as JSON: the stored line when the item is the record unchanged. */
  json: string;
  bytes: number;
  /** The blob sha a pointer row needs on the server. */
  pointerSha?: string;
  /** Tells the store's acknowledged prefix that the remote holds this row (scanned stores only). */
  acknowledge?: () => void;
}

/** consider()'s answer for a record the manifest already lists. */
const SYNCED = Symbol('synced');

/** Ends a family early when its route is absent and a fallback says to skip it. */
class FamilySkipped extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

export function emptyReport(family: string): FamilyPushReport {
  return {
    family,
    status: 'done',
    local: 0,
    already_synced: 0,
    pending: 0,
    sent: 0,
    inserted: 0,
    duplicates: 0,
    forgotten: 0,
    held: {},
    before_since: 0,
    invalid: 0,
    failed: 0,
    blobs_uploaded: 0,
    blobs_present: 0,
    inline_fallbacks: 0,
  };
}

/** Pushes one family: reads its store, keeps what the manifest and the plan let through, sends it in bounded batches. */
export class FamilyPush {
  readonly report: FamilyPushReport;
  readonly #store: FamilyStore;
  readonly #family: RegisteredFamily;
  #batch: Outgoing[] = [];
  #batchBytes = 0;
  #firstInvalid?: { key?: string; problem: string };
  /** The filters' one-time preparation, shared by rows considered at the same time. */
  #filtersReady?: Promise<void>;
  /** Batches on the wire; a failed one stops the run at the next batch or at the end, whenever it fails. */
  readonly #requests = new WorkWindow(MAX_REQUESTS_IN_FLIGHT);
  #skipped?: FamilySkipped;
  /** How far an append-only store is acknowledged by the remote, row by row. */
  #prefix?: AckedPrefix;

  constructor(
    readonly kernel: Kernel,
    readonly session: SyncSession,
    readonly state: RemoteSyncState,
    readonly plan: FamilyPlan,
  ) {
    this.#family = plan.family;
    this.#store = storeOf(plan.family, session.project.dir);
    this.report = emptyReport(plan.family.name);
  }

  async run(): Promise<FamilyPushReport> {
    try {
      if (this.#store.scan) await this.scanStore();
      else await this.readStore();
      await this.sendBatch();
      await this.#requests.drain();
      this.saveScanMark();
      // Not forced: the push graph saves once after the last family, rather than the whole manifest after each.
      await this.state.flush();
      if (this.#firstInvalid) {
        const { key, problem } = this.#firstInvalid;
        const count = this.report.invalid;
        await this.session.log({
          code: 'invalid_local_record',
          message: `${count} local ${this.#family.name} record${count === 1 ? ' is' : 's are'} not sent because the service would refuse ${count === 1 ? 'it' : 'them'}; the first${key ? ` (${key})` : ''}: ${problem}.`,
          family: this.#family.name,
          item: key,
        });
      }
    } catch (error) {
      // Requests still on the wire may yet be acknowledged: let them land, then keep what they did.
      await this.#requests.settle();
      this.saveScanMark();
      await this.state.flush(true);
      if (!(error instanceof FamilySkipped)) throw error;
      this.report.status = 'skipped';
      this.report.reason = error.reason;
    }
    return this.report;
  }

  /**
   * Reads an append-only store from where the last push left it wholly synced.
   * Each row joins the store's acknowledged prefix: the next push starts where
   * that prefix ends (sync-state.json `scanned`; the manifest stays the truth
   * for every record read).
   */
  private async scanStore(): Promise<void> {
    const family = this.#family.name;
    const scan = await this.#store.scan!(this.state.scanned(family, this.#family.manifestKey), (warning) => this.session.warn(warning));
    const resumed = scan.resumedFrom;
    if (resumed) {
      this.report.local += resumed.records;
      this.report.already_synced += resumed.records;
    }
    const prefix = (this.#prefix = new AckedPrefix(resumed && { end: resumed.offset, line: resumed.line, records: resumed.records }));
    for await (const { record, text, end, line } of scan.lines) {
      if (!record) {
        prefix.ended(); // unreadable: it can never be synced
        continue;
      }
      this.report.local += 1;
      const outcome = await this.consider(record, text);
      if (outcome === SYNCED) prefix.synced({ end, line });
      else if (outcome === undefined) prefix.ended();
      else {
        outcome.acknowledge = prefix.pending({ end, line });
        await this.enqueue(outcome);
      }
      this.progress();
    }
  }

  /**
   * Reads a store that has no scan (a blob family's, say): its rows are considered a
   * few at a time, because a blob row waits on its file being hashed and its
   * bytes uploaded, and one upload can travel while the next file is hashed.
   * They are queued for sending in the store's order all the same: each row's
   * outcome is held as a value from the moment it starts and read in its turn,
   * where a failure is thrown.
   */
  private async readStore(): Promise<void> {
    const window: Array<Promise<Outcome<Outgoing | typeof SYNCED | undefined>>> = [];
    const settleFirst = async () => {
      const outcome = unwrap(await window.shift()!);
      if (outcome !== undefined && outcome !== SYNCED) await this.enqueue(outcome);
      this.progress();
    };
    try {
      for await (const record of this.#store.records((warning) => this.session.warn(warning))) {
        this.report.local += 1;
        window.push(outcomeOf(this.consider(record)));
        if (window.length >= CONSIDERED_AT_ONCE) await settleFirst();
      }
      while (window.length > 0) await settleFirst();
    } catch (error) {
      // Rows still being considered may be uploading: let them finish before the failure goes up.
      await Promise.all(window);
      throw error;
    }
  }

  /** Moves the scan mark to the end of the acknowledged prefix: a row not acknowledged is read again next time. */
  private saveScanMark(): void {
    const reached = this.#prefix?.reached();
    if (!reached || this.session.dryRun || !this.#store.markAt) return;
    const mark = this.#store.markAt(reached.end, reached.line, reached.records);
    if (mark) this.state.setScanned(this.#family.name, mark);
  }

  private async consider(record: Record<string, unknown>, text?: string): Promise<Outgoing | typeof SYNCED | undefined> {
    const key = this.#store.keyOf(record);
    const problem =
      key === undefined
        ? `it has no ${this.#family.idMember ?? (this.#family.identity ?? []).join(' + ')}`
        : recordProblem(this.#family, record);
    if (problem) {
      this.report.invalid += 1;
      this.#firstInvalid ??= { key, problem };
      return undefined;
    }
    await this.state.loadManifests();
    if (this.state.has(this.#family.manifestKey, key!)) {
      this.report.already_synced += 1;
      return SYNCED;
    }
    if (this.plan.since !== undefined && !(Date.parse(String(record.ts)) >= Date.parse(this.plan.since))) {
      this.report.before_since += 1;
      return undefined;
    }
    this.#filtersReady ??= (async () => {
      for (const filter of this.plan.filters) await filter.prepare?.();
    })();
    await this.#filtersReady;
    const rejectedBy = this.plan.filters.find((filter) => !filter.accept(record));
    if (rejectedBy) {
      this.report.held[rejectedBy.reason] = (this.report.held[rejectedBy.reason] ?? 0) + 1;
      return undefined;
    }
    this.report.pending += 1;
    if (this.session.dryRun) return undefined;
    const outgoing = await this.rewritten(key!, record);
    if (!outgoing) return undefined;
    const item = this.#family.blob ? await this.blobItem(key!, outgoing) : outgoing;
    if (!item) return undefined;
    const json = item === record && text !== undefined ? text : JSON.stringify(item);
    const pointerSha =
      this.#family.blob && item[this.#family.blob.inlineMember] === undefined ? String(item[this.#family.blob.shaMember]) : undefined;
    return { key: key!, item: pointerSha === undefined ? undefined : item, json, bytes: Buffer.byteLength(json), pointerSha };
  }

  /**
   * The record as the plan's rewrites make it (redaction of data stored before
   * it, say); the manifest keeps the stored key, and sent-as.jsonl says what it
   * went out as. A rewrite that fails leaves the row unsynced: it is never sent
   * as stored instead.
   */
  private async rewritten(key: string, record: Record<string, unknown>): Promise<Record<string, unknown> | undefined> {
    let current = record;
    for (const rewrite of this.plan.rewrites ?? []) {
      try {
        current = (await rewrite.rewrite(current, this.#store)) ?? current;
      } catch (error) {
        // By its code, not its class: a rewrite's modules may not share this module's copy of TracerError.
        const coded = (error as { code?: unknown })?.code;
        const code = typeof coded === 'string' && /^[a-z_]+$/.test(coded) ? coded : 'rewrite_failed';
        const why = (error instanceof Error ? error.message : String(error)).replace(/\.$/, '');
        return this.itemFailed(key, code, `${key} was not sent: its ${rewrite.reason} failed (${why}).`);
      }
    }
    const sent = current === record ? key : this.#store.keyOf(current);
    if (sent !== undefined && sent !== key) recordSentAs(this.session.project.dir, this.#family.name, key, sent);
    return current;
  }

  /** A blob family's row: bytes inline below the threshold (or on fallback), else a pointer to an uploaded blob. */
  private async blobItem(key: string, record: Record<string, unknown>): Promise<Record<string, unknown> | undefined> {
    const blob = this.#family.blob!;
    const sha = String(record[blob.shaMember]);
    const size = Number(record[blob.sizeMember]);
    const path = this.#store.blobPath?.(sha);
    if (!path) throw new Error(`family "${this.#family.name}" describes blobs but its store has no blobPath`);
    try {
      const actual = await hashFile(path);
      if (actual.sha256 !== sha || actual.size !== size) {
        return this.itemFailed(
          key,
          'blob_cache_mismatch',
          `The cached bytes ${path} hash to ${actual.sha256} (${actual.size} bytes), not ${sha} (${size} bytes); the row is left unsynced.`,
        );
      }
    } catch (error) {
      if (error instanceof TracerError) throw error;
      return this.itemFailed(key, 'blob_cache_missing', `The bytes of ${key} are not in ${path}; the row is left unsynced until they are.`);
    }
    const inline = async () => ({ ...record, [blob.inlineMember]: (await readFile(path)).toString('base64') });
    if (size < blob.inlineBelow) return inline();
    if (this.state.has(BLOB_MANIFEST_KEY, sha)) return withoutMember(record, blob.inlineMember);
    let result;
    try {
      result = await this.kernel.hooks.uploadBlob.promise({ sha256: sha, size, path, family: this.#family }, this.session);
    } catch (error) {
      if (isItemsRefused(error)) return this.itemFailed(key, error.code, `${key}: ${error.message}`);
      throw error;
    }
    if (!result) {
      throw new TracerError(
        'blobs_unsupported',
        `Remote "${this.session.remote.name}" cannot take the ${size}-byte blob of ${key}: no enabled plugin could upload it or send it another way; check the server's blob route and the enabled plugins (tracer plugins).`,
        {
          exitCode: ExitCode.failure,
        },
      );
    }
    if (result.via === 'inline') {
      this.report.inline_fallbacks += 1;
      return inline();
    }
    if (result.alreadyPresent) this.report.blobs_present += 1;
    else this.report.blobs_uploaded += 1;
    this.state.add(BLOB_MANIFEST_KEY, sha);
    return withoutMember(record, blob.inlineMember);
  }

  private async enqueue(outgoing: Outgoing): Promise<void> {
    // A batch that failed for good stops the reading here, not only when the next batch goes out.
    this.#requests.check();
    const limits = this.session.transport.limits;
    if (
      this.#batch.length >= limits.itemsPerRequest ||
      (this.#batch.length > 0 && this.#batchBytes + outgoing.bytes > limits.bytesPerRequest)
    )
      await this.sendBatch();
    this.#batch.push(outgoing);
    this.#batchBytes += outgoing.bytes;
  }

  /**
   * Sends the batch while the next one is read and checked: up to
   * MAX_REQUESTS_IN_FLIGHT requests overlap, so the service is never idle
   * waiting for the client (every route is idempotent, so order does not matter).
   * A request's failure is kept by the window the moment it happens and stops the
   * run at the next batch or at the end.
   */
  private async sendBatch(): Promise<void> {
    const batch = this.#batch;
    this.#batch = [];
    this.#batchBytes = 0;
    if (batch.length === 0) return;
    this.#requests.start(() => this.send(batch, true));
    // Out now, not after the next stretch of lines is read and checked.
    await this.session.transport.yieldToRequests();
    await this.#requests.room();
  }

  /** Sends items; a refusal that names items (or a single item) leaves those unsynced and sends the rest. */
  private async send(items: Outgoing[], mayReupload: boolean): Promise<void> {
    let answer;
    try {
      // Each item's JSON text as it is: a batch of stored lines is never parsed and serialized again.
      answer = await this.session.transport.send(
        this.#family,
        items.map((outgoing) => outgoing.json),
      );
    } catch (error) {
      return this.refused(error, items, mayReupload);
    }
    for (const outgoing of items) {
      this.state.add(this.#family.manifestKey, outgoing.key);
      outgoing.acknowledge?.();
    }
    this.report.sent += items.length;
    this.report.inserted += answer.inserted;
    this.report.duplicates += answer.duplicates;
    this.report.forgotten += answer.forgotten ?? 0;
    this.progress();
    await this.state.flush();
  }

  private async refused(error: unknown, items: Outgoing[], mayReupload: boolean): Promise<void> {
    if (isFeatureMissing(error)) return this.featureMissing(error);
    if (!isItemsRefused(error)) throw error;
    if (error.needsBlobs && mayReupload && items.some((outgoing) => outgoing.pointerSha)) return this.reupload(items);
    if (items.length === 1) {
      await this.itemFailed(items[0]!.key, error.code, `${items[0]!.key} was refused: ${error.message}`);
      return;
    }
    const named = [...error.items.keys()].filter((index) => Number.isInteger(index) && index >= 0 && index < items.length);
    if (named.length > 0) {
      for (const index of named)
        await this.itemFailed(items[index]!.key, error.code, `${items[index]!.key} was refused: ${describeRefusal(error, index)}`);
      const rest = items.filter((_, index) => !error.items.has(index));
      return rest.length > 0 ? this.send(rest, mayReupload) : undefined;
    }
    // Refused as a whole without naming items: halve until the culprits stand alone.
    const middle = Math.ceil(items.length / 2);
    await this.send(items.slice(0, middle), mayReupload);
    await this.send(items.slice(middle), mayReupload);
  }

  /** The remote has no such family (an old server): a fallback plugin may skip it, else the push stops. */
  private async featureMissing(error: FeatureMissing): Promise<never> {
    // The other request in flight met the same absence: its fallback already answered.
    if (this.#skipped) throw this.#skipped;
    const fallback = await this.kernel.hooks.routeMissing.promise(
      { family: this.#family, feature: error.feature, where: error.where },
      this.session,
    );
    if (!fallback) {
      throw new TracerError(
        'route_unsupported',
        `${error.message}; no enabled plugin falls back, so the push stops: upgrade the service, or push the other families with --only.`,
        { exitCode: ExitCode.failure },
      );
    }
    if (fallback.warning) this.session.warn(fallback.warning);
    throw (this.#skipped = new FamilySkipped(`the remote has no ${error.where}`));
  }

  /** The manifest said the remote held these blobs; it does not (e.g. a new server): upload them again. */
  private async reupload(items: Outgoing[]): Promise<void> {
    for (const outgoing of items) if (outgoing.pointerSha) this.state.delete(BLOB_MANIFEST_KEY, outgoing.pointerSha);
    const again: Outgoing[] = [];
    for (const outgoing of items) {
      if (!outgoing.pointerSha) {
        again.push(outgoing);
        continue;
      }
      const item = await this.blobItem(outgoing.key, outgoing.item!);
      if (item) again.push({ ...outgoing, item, json: JSON.stringify(item) });
    }
    return again.length > 0 ? this.send(again, false) : undefined;
  }

  private async itemFailed(key: string, code: string, message: string): Promise<undefined> {
    this.report.failed += 1;
    await this.session.log({ code, message, family: this.#family.name, item: key });
    return undefined;
  }

  private progress(): void {
    const { report } = this;
    stepAdvanced(this.kernel, report.family, this.session.dryRun ? report.pending : report.sent, `${report.local} read`);
  }
}

function describeRefusal(error: ItemsRefused, index: number): string {
  return error.items.get(index) ?? error.message;
}

function withoutMember(record: Record<string, unknown>, member: string): Record<string, unknown> {
  const { [member]: _dropped, ...rest } = record;
  return rest;
}

/** Required members present and shaped as the definition says; the service would refuse the record otherwise. */
export function recordProblem(family: FamilyDefinition, record: Record<string, unknown>): string | undefined {
  const missing = family.required.filter((member) => record[member] === undefined || record[member] === null);
  if (missing.length > 0) return `it lacks ${missing.join(', ')}`;
  for (const [member, kind] of Object.entries(family.members ?? {})) {
    if (record[member] === undefined) continue;
    const problem = memberProblem(kind, record[member]);
    if (problem) return `${member} ${problem}`;
  }
  return undefined;
}
