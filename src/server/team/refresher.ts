// Keeps the team view's tables caught up with pushes. An upload schedules a
// run in the background (the client never waits for it); a page asks for one
// and waits. Runs of one project never overlap in this process: a request
// arriving during a run waits for it and then for one more, which takes in
// whatever arrived meanwhile.
import type { FastifyBaseLogger } from 'fastify';
import type { TraceStorage } from '../storage/types.js';

export class ViewRefresher {
  readonly #running = new Map<number, Promise<void>>();
  readonly #queued = new Map<number, Promise<void>>();

  constructor(
    private readonly storage: TraceStorage,
    private readonly log: () => FastifyBaseLogger,
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

  /** After an upload: the same run, in the background; its failure is logged here and nowhere else. */
  schedule(projectId: number): void {
    this.refresh(projectId).catch((error: unknown) => this.log().error({ err: error, projectId }, 'team view refresh failed'));
  }

  /** Settles when no run is in progress (before the storage closes). */
  async idle(): Promise<void> {
    while (this.#running.size || this.#queued.size) await Promise.allSettled([...this.#running.values(), ...this.#queued.values()]);
  }

  #start(projectId: number): Promise<void> {
    const run = this.storage.refreshView(projectId).finally(() => {
      if (this.#running.get(projectId) === run) this.#running.delete(projectId);
    });
    this.#running.set(projectId, run);
    return run;
  }
}
