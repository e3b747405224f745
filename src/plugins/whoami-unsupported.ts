// Old servers without whoami (spec §7, §9): warn `whoami_unsupported` and go on
// without the scope check. Switched off, such a server makes every push fail with
// whoami_unsupported instead.
import { STAGE, type TracerPlugin } from '../plugin/index.js';

const whoamiUnsupported: TracerPlugin = {
  name: 'whoami-unsupported',
  apply(kernel) {
    kernel.hooks.routeMissing.tapPromise({ name: 'whoami-unsupported', stage: STAGE.fallback }, async (missing, session) => {
      if (missing.feature !== 'whoami') return undefined;
      return {
        warning: {
          code: 'whoami_unsupported',
          message: `The server of remote "${session.remote.name}" has no ${missing.where}, so the token's scope was not checked; going on.`,
          plugin: 'whoami-unsupported',
        },
      };
    });
  },
};

export default whoamiUnsupported;
