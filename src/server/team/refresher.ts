// Keeps the team view's tables caught up with pushes. Runs of one project
// never overlap in this process: a request arriving during a run waits for it
// and then for one more, which takes in whatever arrived meanwhile.
//
// When uploads are folded in depends on the backend (TraceStorage.foldsWithUploads).
// On SQLite the fold is this process's own CPU, so it waits until a project's
// uploads pause (folding in during a 200k-trace push made it 2.5 times as long);
// on PostgreSQL it is the database's work, so each upload folds its rows in
// before it answers and a bulk push leaves nothing to catch up.
//
// A page never waits long: with few rows behind it waits for them, with more it
// answers at once from what is folded, the fold goes on in the background, and
// the progress route (team/progress.ts) tells the page how far it has got.
import type { FastifyBaseLogger } from 'fastify';
import type { TraceStorage } from '../storage/types.js';
import { rowsBehind } from './progress.js';

/** A background run starts once a project's uploads have paused this long. */
const QUIET_MS = 1_000;
/** A page or an upload waits for the fold when at most this many rows are behind (well under a second of folding). */
export const WAIT_AT_MOST_ROWS = 5_000;

export class ViewRefresher {
  readonly #running = new Map<number, Promise<void>>();
  readonly #queued = new Map<number, Promise<void>>();
  readonly #waiting = new Map<number, NodeJS.Timeout>();
  #stopped = false;

  constructor(
    private readonly storage: TraceStorage,
    private readonly log: () => FastifyBaseLogger,
    /** Told after each run that folded rows in: the usage of new transcripts is read then (team/usage.ts). */
    private readonly afterFold: (projectId: number) => void = () => {},
  ) {}

  /** Resolves once every row stored before this call is in the view tables. */
  refresh(projectId: number): Promise<void> {
    const queued = this.#queued.get(projectId);
    if (queued) return queued;
    const running = this.#running.get(projectId);
    if (!running) return this.#start(projectId);
    const next = running
      .catch(() => undefined)
      .then(() => {
        this.#queued.delete(projectId);
        return this.#start(projectId);
      });
    this.#queued.set(projectId, next);
    return next;
  }

  /**
   * Before a page reads: resolves at once when nothing is behind, after the fold
   * when a few rows are, and at once when many are, the fold then running in the background.
   */
  async ready(projectId: number): Promise<void> {
    const behind = await rowsBehind(this.storage, projectId, WAIT_AT_MOST_ROWS + 1);
    if (behind === 0) return;
    if (behind <= WAIT_AT_MOST_ROWS) return this.refresh(projectId);
    // A run in progress keeps going while it finds full batches, so it takes these rows in too.
    if (!this.#running.has(projectId) && !this.#queued.has(projectId)) this.#inBackground(projectId);
  }

  /** After an upload stored new rows: folded in now (waiting as a page does), or once uploads pause. */
  async afterUpload(projectId: number): Promise<void> {
    if (!this.storage.foldsWithUploads) return this.schedule(projectId);
    // The rows are stored whatever happens here: a failed fold is logged and left to the background run.
    await this.ready(projectId).catch((error: unknown) => {
      this.log().error({ err: error, projectId }, 'team view refresh failed');
      this.schedule(projectId);
    });
  }

  /** The same run, in the background once uploads pause. */
  schedule(projectId: number): void {
    if (this.#stopped) return;
    clearTimeout(this.#waiting.get(projectId));
    const timer = setTimeout(() => {
      this.#waiting.delete(projectId);
      this.#inBackground(projectId);
    }, QUIET_MS);
    timer.unref();
    this.#waiting.set(projectId, timer);
  }

  /**
   * Before the storage closes: no new background run, and the ones in progress
   * finish. Rows not folded in yet are taken in by the next page that asks.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const timer of this.#waiting.values()) clearTimeout(timer);
    this.#waiting.clear();
    while (this.#running.size || this.#queued.size) await Promise.allSettled([...this.#running.values(), ...this.#queued.values()]);
  }

  /** A run nobody waits for: its failure is logged here and nowhere else. */
  #inBackground(projectId: number): void {
    if (this.#stopped) return;
    this.refresh(projectId).catch((error: unknown) => this.log().error({ err: error, projectId }, 'team view refresh failed'));
  }

  #start(projectId: number): Promise<void> {
    const run = this.storage
      .refreshView(projectId)
      .then(() => this.afterFold(projectId))
      .finally(() => {
        if (this.#running.get(projectId) === run) this.#running.delete(projectId);
      });
    this.#running.set(projectId, run);
    return run;
  }
}
