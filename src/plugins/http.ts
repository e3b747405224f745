import type { TracerPlugin } from '../kernel/kernel.js';
import { STAGE } from '../kernel/stages.js';

/**
 * Opens http: and https: remotes with the HTTP protocol (src/protocol/). The
 * protocol is loaded when a remote is opened, not when the plugin is applied:
 * commands that open none (a hook, a status of local files) pay nothing.
 */
const httpPlugin: TracerPlugin = {
  name: 'http',
  apply(kernel) {
    kernel.hooks.connect.tapPromise({ name: 'http', stage: STAGE.native }, async (remote, request) => {
      if (!/^https?:$/.test(new URL(remote.target.url).protocol)) return undefined;
      const { createHttpTransport } = await import('../protocol/http-transport.js');
      return createHttpTransport(remote, request, kernel.context.env);
    });
  },
};

export default httpPlugin;
