// Resolves remotes from the project's remotes.json and their tokens from the
// token_ref alone (spec §5.2). Another plugin may answer first at an earlier stage.
import {
  chooseRemoteName,
  parseRemoteUrl,
  readGlobalConfig,
  readProjectConfig,
  readRemotes,
  requireRemote,
  resolveCredentials,
  type TracerPlugin,
} from '../plugin/index.js';

const remoteResolver: TracerPlugin = {
  name: 'remote-resolver',
  apply(kernel) {
    kernel.hooks.resolveRemote.tapPromise({ name: 'remote-resolver', stage: 0 }, async (query) => {
      const [remotes, projectConfig, globalConfig] = await Promise.all([
        readRemotes(query.project.dir),
        readProjectConfig(query.project.dir),
        readGlobalConfig(kernel.context.home),
      ]);
      const name = chooseRemoteName(remotes, query.name, projectConfig.remote?.default);
      const record = requireRemote(remotes, name);
      const credentials = resolveCredentials({
        remoteName: name,
        remote: record,
        purpose: query.purpose,
        env: kernel.context.env,
        globalConfig,
      });
      return {
        name,
        record,
        target: parseRemoteUrl(record.url),
        token: credentials.token,
        tokenSource: credentials.source,
        adminSecret: credentials.adminSecret,
      };
    });
  },
};

export default remoteResolver;
