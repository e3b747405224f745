// What the engine (src/kernel/, src/sync/) used before the Transport: the
// client of one remote, under its old names. Goes once the engine talks to a
// Transport (src/protocol/http-transport.ts).
import { remoteHeaders, remoteWording, type RemoteTarget } from '../protocol/remote-client.js';
import { HttpClient } from './http-client.js';
import { DEFAULT_SETTINGS, type ClientSettings } from './settings.js';

export { letRequestsOut, type Answer, type RequestSpec } from './http-client.js';
export { DEFAULT_SETTINGS, settingsFromEnv, type ClientSettings } from './settings.js';
export type { RemoteTarget } from '../protocol/remote-client.js';

export class RemoteClient extends HttpClient {
  constructor(
    readonly target: RemoteTarget,
    settings: ClientSettings = DEFAULT_SETTINGS,
  ) {
    super({ baseUrl: target.apiRoot, headers: remoteHeaders(target), settings, wording: remoteWording(target) });
  }
}
