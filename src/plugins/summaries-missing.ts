// Old servers without a summaries route (spec §4.2, §9): push and pull skip
// summaries silently. Switched off, such a server makes push and pull fail with
// route_unsupported instead.
import { STAGE, type TracerPlugin } from '../plugin/index.js';

const summariesMissing: TracerPlugin = {
  name: 'summaries-missing',
  apply(kernel) {
    kernel.hooks.routeMissing.tapPromise({ name: 'summaries-missing', stage: STAGE.fallback }, async (missing) =>
      missing.family?.name === 'summaries' ? {} : undefined,
    );
  },
};

export default summariesMissing;
