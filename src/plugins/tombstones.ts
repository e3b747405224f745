// What a remote forgot travels (issue 31): before and after every push and
// pull, the remote's tombstones are recorded and what they name leaves this
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
    kernel.hooks.afterTransfer.tapPromise(sync, (session) => syncSessionTombstones(kernel, session));
    kernel.hooks.beforeFamily.tapPromise('tombstones', async (plan, session) => {
      if (session.direction !== 'push' || !plan.family.privacy) return plan;
      return { ...plan, filters: [...plan.filters, await forgottenFilter(kernel, session, plan.family.name)] };
    });
  },
};

export default tombstonesPlugin;
