// Opens http: and https: remotes with the HTTP protocol (src/protocol/). The
// protocol is loaded when a remote is opened, not when the plugin is applied:
// commands that open none (a hook, a status of local files) pay nothing.
import { STAGE, type TracerPlugin } from '../plugin/index.js';

const httpPlugin: TracerPlugin = {
  name: 'http',
  apply(kernel) {
    kernel.hooks.connect.tapPromise({ name: 'http', stage: STAGE.native }, async (remote, request) => {
      if (!/^https?:$/.test(new URL(remote.target.url).protocol)) return undefined;
      const { createHttpTransport } = await import('../protocol/index.js');
      return createHttpTransport(remote, request, kernel.context.env);
    });
  },
};

export default httpPlugin;
