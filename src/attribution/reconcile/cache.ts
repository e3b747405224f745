// reconcile-cache.json: what reconcile learnt from git that never changes, so a
// hook or a blame does not ask again. A commit's patch-id depends on its
// trees alone; a pull-request head the remote did not have is not fetched
// again by the hooks (`tracer reconcile` asks again). Losing the file costs
// time, never a result.
import { join } from 'node:path';
import { isPlainObject, readStateFile, writeStateFile } from '../../store/state-file.js';

export interface ReconcileCache {
  /** commit → patch-id, or "" for a commit with none (a merge, an empty commit). */
  patch_ids: Record<string, string>;
  /** Pull-request head refs the remote did not give. */
  missing_heads: Record<string, true>;
  /** Commits found to have no source, with the number of ledgers there were then: looked at again only when more arrive. */
  no_source: Record<string, number>;
}

export const RECONCILE_CACHE_FILE = 'reconcile-cache.json';

const options = {
  empty: (): ReconcileCache => ({ patch_ids: {}, missing_heads: {}, no_source: {} }),
  isValid: (value: unknown): value is ReconcileCache =>
    isPlainObject(value) && isPlainObject(value.patch_ids) && isPlainObject(value.missing_heads) && isPlainObject(value.no_source),
};

export async function readReconcileCache(projectDir: string): Promise<ReconcileCache> {
  try {
    return await readStateFile(join(projectDir, RECONCILE_CACHE_FILE), options);
  } catch {
    // A damaged cache was moved aside by readStateFile: start over.
    return options.empty();
  }
}

export async function writeReconcileCache(projectDir: string, cache: ReconcileCache): Promise<void> {
  await writeStateFile(join(projectDir, RECONCILE_CACHE_FILE), cache);
}
