// Locks between tracer processes on a project's files: proper-lockfile's (a
// folder made with mkdir, atomic on every file system, its mtime refreshed
// while held), so a holder that was killed leaves a lock that goes stale
// instead of blocking every later run, with no pid to check.
//
// The module is loaded on first use, not at import: its graceful-fs costs
// ~18 ms, which a hook or a blame that locks nothing must not pay. A run that
// will surely lock starts loading it early (preloadLockfile), while git works.

/** Releases the lock. */
export type Release = () => Promise<void>;

/** A lock not refreshed for this long belongs to a process that is gone (proper-lockfile refreshes it every half of this). */
const DEFAULT_STALE_MS = 10_000;
const DEFAULT_POLL_MS = 50;

const importLockfile = () => import('proper-lockfile');
let loading: ReturnType<typeof importLockfile> | undefined;

/** Starts loading proper-lockfile; a failure to load is seen by the lockFolder call that awaits the same promise. */
export function preloadLockfile(): ReturnType<typeof importLockfile> {
  if (loading === undefined) {
    loading = importLockfile();
    // Only so a run that ends before it locks is not an unhandled rejection.
    loading.catch(() => undefined);
  }
  return loading;
}

/**
 * Takes the lock folder `lockPath`, waiting up to `waitMs` for its holder
 * (0: not at all); undefined when it is still held then.
 */
export async function lockFolder(
  lockPath: string,
  options: { waitMs: number; pollMs?: number; staleMs?: number },
): Promise<Release | undefined> {
  const { default: lockfile } = await preloadLockfile();
  const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
  try {
    return await lockfile.lock(lockPath, {
      realpath: false,
      lockfilePath: lockPath,
      stale: options.staleMs ?? DEFAULT_STALE_MS,
      retries: { retries: Math.ceil(Math.max(0, options.waitMs) / pollMs), factor: 1, minTimeout: pollMs, maxTimeout: pollMs },
      // Losing the lock while holding it (its folder removed by hand) is each caller's worst case, never a reason to stop half-way.
      onCompromised: () => undefined,
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') return undefined;
    throw error;
  }
}
