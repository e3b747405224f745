// Background work per project after a fold (the team view's usage, its search
// index): one run per project at a time; asked again while running, it runs
// once more afterwards. Failures are logged here and nowhere else: what the
// work derives stays stale and the next run retries.
import type { FastifyBaseLogger } from 'fastify';

/** The work; what it resolves to (e.g. how many rows it wrote) is not used. */
export type ProjectWork = (projectId: number, stopped: () => boolean) => Promise<unknown>;

export class ProjectRefresher {
  readonly #running = new Map<number, Promise<void>>();
  readonly #again = new Set<number>();
  #stopped = false;

  /** `failure`: the log line a failed run writes, e.g. "team view usage reading failed". */
  constructor(
    private readonly work: ProjectWork,
    private readonly failure: string,
    private readonly log: () => FastifyBaseLogger,
  ) {}

  schedule(projectId: number): void {
    if (this.#stopped) return;
    if (this.#running.has(projectId)) {
      this.#again.add(projectId);
      return;
    }
    const run = (async () => {
      do {
        this.#again.delete(projectId);
        await this.work(projectId, () => this.#stopped);
      } while (this.#again.has(projectId) && !this.#stopped);
    })()
      .catch((error: unknown) => this.log().error({ err: error, projectId }, this.failure))
      .finally(() => this.#running.delete(projectId));
    this.#running.set(projectId, run);
  }

  /** Resolves once this project's runs are over (tests, and pages that want every transcript read). */
  async settled(projectId: number): Promise<void> {
    while (this.#running.has(projectId)) await this.#running.get(projectId);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.allSettled([...this.#running.values()]);
  }
}
