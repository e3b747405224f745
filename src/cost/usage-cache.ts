// Token usage is derived data: computed from a transcript snapshot by its
// agent's reader (src/transcript/usage.ts), so it works for conversations
// captured before this release and for those that were pulled. A snapshot's
// bytes never change (its name is their SHA-256), so its usage is read once and
// kept in `<project>/cache/usage.jsonl`, one line per snapshot and reader: a
// later run reads that line, never the transcript again. Losing the file only
// costs the time to read the transcripts once more.
import { join } from 'node:path';
import { blobCachePath, PROJECT_STATE_FILES } from '../store/home.js';
import { lstat, readFile } from 'node:fs/promises';
import type { TranscriptSource, UsageRecord, UsageReport } from '../core/transcript.js';
import { appendRecords, readRecords } from '../store/jsonl.js';
import { recognizeFormat, transcriptFormat, type FormatContext } from '../transcript/agents.js';
import { bufferSource, fileSource } from '../transcript/source.js';
import { readUsage } from '../transcript/usage.js';

export const USAGE_CACHE_FILE = join(PROJECT_STATE_FILES.cache, 'usage.jsonl');

/**
 * Bumped whenever a built-in reader changes what it reads as usage, so that
 * figures read by an older reader are read again. A plugin's reader is keyed by
 * its agent id only: its author changes the id's figures by bumping this too.
 */
// 2: a transcript whose usage records are all refused reads as unknown, not as $0 of known usage.
export const USAGE_READ_VERSION = 2;

/** One request as kept: [turn, unix seconds | null, model index | -1, input, output, cacheWrite, cacheRead, reasoning, cacheWrite1h, 1 for session totals]. */
export type CompactRequest = [number, number | null, number, number, number, number, number, number, number, 0 | 1];

export interface SnapshotUsage {
  sha: string;
  /** The agent whose reader read it; null when it was recognised from its first records. */
  agent: string | null;
  v: number;
  usage: 'known' | 'unknown';
  reason?: string;
  models: string[];
  requests: CompactRequest[];
  /** Refusal code → how many usages it refused (never counted). */
  refused: Record<string, number>;
  /** Records that could not be read at all. */
  skipped: number;
}

export class UsageCache {
  private entries: Map<string, SnapshotUsage> | undefined;
  private readonly fresh: SnapshotUsage[] = [];

  /** `persist: false` (the viewers, which only read the store) keeps what it reads in memory only. */
  constructor(
    private readonly projectDir: string,
    private readonly context: FormatContext,
    private readonly options: { persist: boolean } = { persist: true },
  ) {}

  private get path(): string {
    return join(this.projectDir, USAGE_CACHE_FILE);
  }

  async load(): Promise<void> {
    if (this.entries) return;
    const entries = new Map<string, SnapshotUsage>();
    for await (const entry of readRecords<SnapshotUsage>(this.path)) {
      if (isEntry(entry) && entry.v === USAGE_READ_VERSION) entries.set(key(entry.sha, entry.agent), entry);
    }
    this.entries = entries;
  }

  /** The cached usage of a snapshot read as `agent`'s, if this cache has it. */
  cached(sha: string, agent: string | null): SnapshotUsage | undefined {
    return this.entries?.get(key(sha, agent));
  }

  /**
   * The usage of the snapshot `sha`, read as `agent`'s transcript (recognised
   * from its first records when the agent is unknown): the cached line, else
   * the transcript read now and its line kept for `save`. Undefined when the
   * snapshot's bytes are not here.
   */
  async usageOf(sha: string, agent: string | null): Promise<SnapshotUsage | undefined> {
    await this.load();
    const known = this.cached(sha, agent);
    if (known) return known;
    const entry = await readSnapshotUsage(this.projectDir, this.context, sha, agent);
    if (entry) this.put(entry);
    return entry;
  }

  /** Keeps a snapshot's usage read elsewhere (usage-workers.ts), for `save`. */
  put(entry: SnapshotUsage): void {
    this.entries?.set(key(entry.sha, entry.agent), entry);
    this.fresh.push(entry);
  }

  /** Keeps what was read since the last save; a failure to write costs only a later read. */
  save(): void {
    if (!this.options.persist) this.fresh.length = 0;
    if (this.fresh.length === 0) return;
    try {
      appendRecords(this.path, this.fresh.splice(0));
    } catch {
      // A read-only home still answers; the cache is only for speed.
    }
  }
}

/** A snapshot's usage read from its bytes now, as `agent`'s transcript (recognised when null); undefined when the bytes are not here. */
export async function readSnapshotUsage(
  projectDir: string,
  context: FormatContext,
  sha: string,
  agent: string | null,
): Promise<SnapshotUsage | undefined> {
  const source = await snapshotSource(blobCachePath(join(projectDir, 'conversations'), sha));
  if (!source) return undefined;
  const format = agent === null ? await recognizeFormat(source, context) : await transcriptFormat(agent, context);
  const report: UsageReport = format
    ? await readUsage(source, format)
    : { usage: 'unknown', reason: agent === null ? 'No agent recognises this transcript.' : `No reader for agent "${agent}" is enabled.` };
  return compact(sha, agent, report);
}

/** Most snapshots are small: read whole in one go (a few system calls), a large one streamed. */
const READ_WHOLE_BELOW = 16 * 1024 * 1024;

async function snapshotSource(path: string): Promise<TranscriptSource | undefined> {
  const info = await lstat(path).catch(() => undefined);
  if (!info?.isFile()) return undefined;
  if (info.size >= READ_WHOLE_BELOW) return fileSource(path);
  const bytes = await readFile(path).catch(() => undefined);
  return bytes && bufferSource(bytes);
}

function key(sha: string, agent: string | null): string {
  return `${sha}\u0000${agent ?? ''}`;
}

export function compact(sha: string, agent: string | null, report: UsageReport): SnapshotUsage {
  if (report.usage === 'unknown')
    return {
      sha,
      agent,
      v: USAGE_READ_VERSION,
      usage: 'unknown',
      reason: report.reason,
      models: [],
      requests: [],
      refused: {},
      skipped: 0,
    };
  const models: string[] = [];
  const index = new Map<string, number>();
  const requests = report.records.map((record): CompactRequest => {
    let model = -1;
    if (record.model !== undefined) {
      model = index.get(record.model) ?? models.push(record.model) - 1;
      index.set(record.model, model);
    }
    const seconds = record.ts === undefined ? NaN : Date.parse(record.ts);
    const t = record.tokens;
    return [
      record.turn,
      Number.isNaN(seconds) ? null : Math.floor(seconds / 1000),
      model,
      t.input,
      t.output,
      t.cacheWrite,
      t.cacheRead,
      t.reasoning ?? 0,
      t.cacheWrite1h ?? 0,
      record.scope === 'session' ? 1 : 0,
    ];
  });
  const refused: Record<string, number> = {};
  for (const refusal of report.refused) refused[refusal.code] = (refused[refusal.code] ?? 0) + 1;
  return { sha, agent, v: USAGE_READ_VERSION, usage: 'known', models, requests, refused, skipped: report.skipped };
}

/** A kept request back as a UsageRecord (its record number is not kept: 0). */
export function expand(entry: SnapshotUsage, request: CompactRequest): UsageRecord {
  const [turn, seconds, model, input, output, cacheWrite, cacheRead, reasoning, cacheWrite1h, session] = request;
  return {
    turn,
    record: 0,
    ...(seconds === null ? {} : { ts: new Date(seconds * 1000).toISOString() }),
    ...(model >= 0 && entry.models[model] !== undefined ? { model: entry.models[model] } : {}),
    tokens: {
      input,
      output,
      cacheWrite,
      cacheRead,
      ...(reasoning > 0 ? { reasoning } : {}),
      ...(cacheWrite1h > 0 ? { cacheWrite1h } : {}),
    },
    scope: session === 1 ? 'session' : 'request',
  };
}

/** A line of the cache file is trusted only in its exact shape: a damaged one is read again from the transcript. */
function isEntry(value: unknown): value is SnapshotUsage {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Partial<SnapshotUsage>;
  return (
    typeof entry.sha === 'string' &&
    (entry.agent === null || typeof entry.agent === 'string') &&
    (entry.usage === 'known' || entry.usage === 'unknown') &&
    Array.isArray(entry.models) &&
    entry.models.every((model) => typeof model === 'string') &&
    Array.isArray(entry.requests) &&
    entry.requests.every(isRequest) &&
    typeof entry.refused === 'object' &&
    entry.refused !== null &&
    typeof entry.skipped === 'number'
  );
}

function isRequest(request: unknown): boolean {
  if (!Array.isArray(request) || request.length !== 10) return false;
  for (let index = 0; index < 10; index += 1) {
    const value: unknown = request[index];
    if (index === 1 && value === null) continue;
    if (typeof value !== 'number' || !(value >= -1) || value === Infinity) return false;
  }
  return true;
}
