// What a remote forgot travels (issue 31): before every push and pull (and
// after a pull), the remote's tombstones are recorded and what they name leaves this
// machine (a warning says what); a remote that lost some (restored from an
// older backup) is told again; and a push never sends a row a tombstone names.
// Switched off, forgotten rows stay here until removed by hand, and a push of
// one is answered `forgotten` by the service, which keeps none of it.
import { STAGE, syncSessionTombstones, forgottenFilter, type TracerPlugin } from '../plugin/index.js';

const tombstonesPlugin: TracerPlugin = {
  name: 'tombstones',
  apply(kernel) {
    const sync = { name: 'tombstones', stage: STAGE.native };
    kernel.hooks.beforeTransfer.tapPromise(sync, (session) => syncSessionTombstones(kernel, session));
    // After a pull, what was forgotten while it ran (rows it may just have brought) goes at once. After a
    // push it waits for the next run: a push adds no rows here, and a no-op push stays one request shorter.
    kernel.hooks.afterTransfer.tapPromise(sync, async (session) => {
      if (session.direction === 'pull') await syncSessionTombstones(kernel, session);
    });
    kernel.hooks.beforeFamily.tapPromise('tombstones', async (plan, session) => {
      if (session.direction !== 'push' || !plan.family.privacy) return plan;
      return { ...plan, filters: [...plan.filters, await forgottenFilter(kernel, session, plan.family.name)] };
    });
  },
};

export default tombstonesPlugin;
