// Work started now and awaited later: requests on the wire, blob uploads and
// downloads, a page fetched while the last one is written. The rule here is that
// every piece's outcome is observed exactly once, by a handler attached the
// moment the piece starts, so a failure is kept whenever it happens, whether or
// not anyone is waiting at that instant. docs/reliability.md, "Concurrent work",
// says which pattern each caller uses and why it cannot drop a failure.

/** A promise's outcome as a value: a promise of it never rejects, so it can wait unobserved. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** Starts observing `promise` now: for look-ahead work consumed in order later (see `unwrap`). */
export function outcomeOf<T>(promise: Promise<T>): Promise<Outcome<T>> {
  return promise.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
}

/** The value, or the failure thrown where the outcome is consumed. */
export function unwrap<T>(outcome: Outcome<T>): T {
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}

/**
 * Unordered work, at most `limit` pieces at a time. A piece's failure is kept
 * when it happens; `start` refuses to begin more work once one has failed, and
 * `room` and `drain` throw it. The first failure wins: later ones are of a run
 * that is already failing.
 */
export class WorkWindow {
  readonly #running = new Set<Promise<void>>();
  #failure?: { error: unknown };

  constructor(readonly limit: number) {}

  /** Whether some piece has failed. */
  get failed(): boolean {
    return this.#failure !== undefined;
  }

  /** Throws the first failure seen so far. */
  check(): void {
    if (this.#failure) throw this.#failure.error;
  }

  /** Starts `work` now; throws, starting nothing, when earlier work has failed. */
  start(work: () => Promise<unknown>): void {
    this.check();
    const settled: Promise<void> = (async () => work())()
      .then(
        () => undefined,
        (error: unknown) => void (this.#failure ??= { error }),
      )
      .finally(() => this.#running.delete(settled));
    this.#running.add(settled);
  }

  /** Waits until fewer than `limit` pieces run; throws the first failure. */
  async room(): Promise<void> {
    this.check();
    while (this.#running.size >= this.limit) {
      await Promise.race(this.#running);
      this.check();
    }
  }

  /** Waits until nothing runs; then throws the first failure, if any. */
  async drain(): Promise<void> {
    await this.settle();
    this.check();
  }

  /** Waits until nothing runs, never throwing: for a caller already failing, so late work lands before state is saved. */
  async settle(): Promise<void> {
    while (this.#running.size > 0) await Promise.all(this.#running);
  }
}

/**
 * `work` over every item, at most `limit` at a time; the results in the items'
 * order. After a failure no item starts, the pieces under way finish, and then
 * the first failure is thrown: nothing keeps writing after the caller has failed.
 */
export async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  const window = new WorkWindow(limit);
  try {
    for (const [index, item] of items.entries()) {
      await window.room();
      window.start(async () => {
        results[index] = await work(item);
      });
    }
    await window.drain();
  } catch (error) {
    await window.settle();
    throw error;
  }
  return results;
}
