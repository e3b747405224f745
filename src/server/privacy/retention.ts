// Retention (issue 31): `tracer serve --retain conversations=90d,summaries=90d`,
// and per project through PUT /api/v1/retention, removes rows older than their
// family's limit (by the row's `ts`) as tombstones with reason `retention`. One
// run shortly after start, then hourly; each run logs one line and audits each
// project it removed something from. Attribution (ledgers, commit links) stays
// unless it is named too. Removal goes in batches (removal.ts), so uploads
// wait at most one batch at a time.
import type { FastifyBaseLogger } from 'fastify';
import { ExitCode, TracerError } from '../../core/errors.js';
import type { FamilyDefinition } from '../../kernel/families.js';
import type { TraceStorage } from '../storage/types.js';
import { appendAudit } from './audit.js';
import { emptyRemoval, removeRows, type RemovalReport } from './removal.js';

/** Family name → maximum age in milliseconds. */
export type RetentionPolicy = Record<string, number>;

const UNITS: Record<string, number> = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000, y: 365 * 86_400_000 };
const AGE = /^(\d{1,6})([hdwy])$/;

/** `90d`, `12h`, `4w`, `1y` in milliseconds, or undefined when it is none of those. */
export function parseAge(text: string): number | undefined {
  const match = AGE.exec(text.trim());
  if (!match || Number(match[1]) === 0) return undefined;
  return Number(match[1]) * UNITS[match[2]!]!;
}

/** The age back as the shortest text of the same length (for answers and log lines). */
export function formatAge(ms: number): string {
  for (const unit of ['y', 'w', 'd', 'h']) if (ms % UNITS[unit]! === 0) return `${ms / UNITS[unit]!}${unit}`;
  return `${ms}ms`;
}

/** `--retain conversations=90d,summaries=90d`: refused with a clear sentence when a part is not `<family>=<age>`. */
export function parseRetainFlag(text: string | undefined, families: readonly string[]): RetentionPolicy {
  const policy: RetentionPolicy = {};
  if (text === undefined || text.trim() === '') return policy;
  for (const part of text.split(',')) {
    const [name, age, ...rest] = part.split('=').map((piece) => piece.trim());
    const ms = age === undefined ? undefined : parseAge(age);
    if (!name || ms === undefined || rest.length > 0)
      throw new TracerError(
        'invalid_retention',
        `--retain (or TRACER_SERVE_RETAIN) takes <family>=<age> pairs separated by commas, e.g. conversations=90d,summaries=90d (ages in h, d, w or y), not "${part.trim()}".`,
        { exitCode: ExitCode.usage },
      );
    if (!families.includes(name))
      throw new TracerError(
        'invalid_retention',
        `--retain names "${name}", which is no family of this service; use one of ${families.join(', ')}.`,
        {
          exitCode: ExitCode.usage,
        },
      );
    policy[name] = ms;
  }
  return policy;
}

export async function projectPolicy(storage: TraceStorage, projectId: number): Promise<RetentionPolicy> {
  const [row] = await storage.query<{ policy: string }>('SELECT policy FROM retention_policies WHERE project_id = ?', [projectId]);
  if (!row) return {};
  try {
    const value = JSON.parse(row.policy) as Record<string, unknown>;
    return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, number] => typeof entry[1] === 'number'));
  } catch {
    return {};
  }
}

export interface RetentionRunResult {
  projects: number;
  rows: number;
  blobs: number;
  ms: number;
}

/** Runs retention over every project, or one; the caller logs. `shouldStop` ends it between batches. */
export async function runRetention(input: {
  storage: TraceStorage;
  families: readonly FamilyDefinition[];
  servicePolicy: RetentionPolicy;
  projectId?: number;
  now?: number;
  shouldStop?: () => boolean;
}): Promise<RetentionRunResult & { reports: Map<number, RemovalReport> }> {
  const started = Date.now();
  const now = input.now ?? Date.now();
  const projects = await input.storage.query<{ id: number; org_slug: string; project_slug: string }>(
    `SELECT id, org_slug, project_slug FROM projects${input.projectId === undefined ? '' : ' WHERE id = ?'} ORDER BY id`,
    input.projectId === undefined ? [] : [input.projectId],
  );
  const result = { projects: 0, rows: 0, blobs: 0, ms: 0, reports: new Map<number, RemovalReport>() };
  for (const project of projects) {
    if (input.shouldStop?.()) break;
    const policy = { ...input.servicePolicy, ...(await projectPolicy(input.storage, Number(project.id))) };
    if (Object.keys(policy).length === 0) continue;
    // Every run is in the audit log before it removes anything (issue 31: 'every forget and retention run'), so a run
    // killed half-way is there too; what it removed follows in retention.done, as a forget's in forget.done.
    const ages = Object.fromEntries(Object.entries(policy).map(([name, ms]) => [name, formatAge(ms)]));
    const audit = (action: string, target: Record<string, unknown>) =>
      input.storage.transaction((tx) =>
        appendAudit(tx, { action, actor: { kind: 'service' }, org_slug: project.org_slug, project_slug: project.project_slug, target }),
      );
    await audit('retention.run', { policy: ages, at: new Date(now).toISOString() });
    const report = emptyRemoval();
    for (const [name, ageMs] of Object.entries(policy)) {
      const family = input.families.find((candidate) => candidate.name === name);
      if (!family || input.shouldStop?.()) continue;
      await removeRows(input.storage, {
        projectId: Number(project.id),
        criteria: { families: [family], beforeMillis: now - ageMs },
        reason: 'retention',
        by: 'retention',
        families: input.families,
        report,
      });
    }
    const removed = Object.values(report.rows).reduce((sum, n) => sum + n, 0);
    if (removed === 0) continue;
    result.projects += 1;
    result.rows += removed;
    result.blobs += report.blobs;
    result.reports.set(Number(project.id), report);
    await audit('retention.done', {
      rows: report.rows,
      blobs: report.blobs,
      conversations: [...report.conversations].slice(0, 100),
      conversations_total: report.conversations.size,
      policy: ages,
    });
  }
  if (result.rows > 0) await input.storage.purge();
  result.ms = Date.now() - started;
  return result;
}

/** The background schedule: a first run `delayMs` after start, then every `intervalMs`; one run at a time. */
export class RetentionSchedule {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(
    private readonly input: {
      storage: TraceStorage;
      families: readonly FamilyDefinition[];
      servicePolicy: RetentionPolicy;
      delayMs: number;
      intervalMs: number;
      log: () => FastifyBaseLogger;
    },
  ) {}

  start(): void {
    this.#schedule(this.input.delayMs);
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#running = this.#run().finally(() => {
        this.#running = undefined;
        this.#schedule(this.input.intervalMs);
      });
    }, ms);
    this.#timer.unref();
  }

  /** One run; its failure is logged here and nowhere else, and the next run comes as planned. */
  async #run(): Promise<void> {
    const log = this.input.log();
    try {
      const result = await runRetention({ ...this.input, shouldStop: () => this.#stopped });
      log.info(
        { retention: { projects: result.projects, rows: result.rows, blobs: result.blobs, ms: result.ms } },
        `retention run: removed ${result.rows} rows and ${result.blobs} blobs from ${result.projects} projects in ${result.ms} ms`,
      );
    } catch (error) {
      log.error({ err: error }, 'retention run failed; the next run tries again');
    }
  }

  /** Before the storage closes: no new run, and one under way stops after its current batch. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }
}
