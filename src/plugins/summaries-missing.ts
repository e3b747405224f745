import type { TracerPlugin } from '../kernel/kernel.js';
import { STAGE } from '../kernel/stages.js';

/**
 * Old servers without `/api/v1/sync/summaries` (spec §4.2, §9): push and pull
 * skip summaries silently. Switched off, such a server makes push and pull fail
 * with route_unsupported instead.
 */
const summariesMissing: TracerPlugin = {
  name: 'summaries-missing',
  apply(kernel) {
    kernel.hooks.routeMissing.tapPromise({ name: 'summaries-missing', stage: STAGE.fallback }, async (missing) =>
      missing.family?.name === 'summaries' ? { action: 'skip' } : undefined,
    );
  },
};

export default summariesMissing;
