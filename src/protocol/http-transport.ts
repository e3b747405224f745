// The HTTP protocol as a Transport (src/kernel/transport.ts): families,
// records and blobs in, routes, bodies and statuses on the wire. What the
// service's answers mean for the engine is decided here: a route an older
// server lacks is FeatureMissing, a refusal of the records themselves is
// ItemsRefused, anything else (auth, scope, the network) a TracerError.
import type { Readable } from 'node:stream';
import { ExitCode } from '../core/errors.js';
import type { FamilyDefinition } from '../kernel/families.js';
import {
  FeatureMissing,
  ItemsRefused,
  type ConnectRequest,
  type Identity,
  type PageAnswer,
  type PageQuery,
  type SendAnswer,
  type Transport,
} from '../kernel/transport.js';
import type { ResolvedRemote } from '../kernel/types.js';
import { letRequestsOut } from '../net/http-client.js';
import { quickened, settingsFromEnv } from '../net/settings.js';
import { BLOB_HEAD_STATUSES, blobRoutePresent, blobUploadHeaders } from './blobs.js';
import { identityOf, pageOf, pageParameters, sendAnswerOf, uploadBody, type Speaker } from './bodies.js';
import { CLIENT_BYTES_PER_REQUEST, ITEMS_PER_REQUEST, PAGE_SIZE } from './limits.js';
import { PRIVACY_CAPABILITY, privacyChannel } from './privacy.js';
import { isRemoteError, isRouteMissing, type RemoteError } from './problem.js';
import { remoteClient, type RemoteTarget } from './remote-client.js';
import { apiRoot, blobRoute, BLOBS_ROUTE, syncRoute, WHOAMI_ROUTE } from './routes.js';

export function createHttpTransport(remote: ResolvedRemote, request: ConnectRequest, env: NodeJS.ProcessEnv): Transport {
  const root = apiRoot(remote.target);
  const target: RemoteTarget = {
    name: remote.name,
    url: remote.target.url,
    org: remote.target.org_slug,
    project: remote.target.project_slug,
    apiRoot: root,
    token: remote.token,
    hasToken: remote.token !== undefined,
    tokenSource: remote.tokenSource,
  };
  const client = remoteClient(target, quickened(settingsFromEnv(env), request.quick));
  const speaker: Speaker = { name: remote.name, url: remote.target.url };
  /** Whether the server has blob routes, once a HEAD 404 made it ask. */
  let blobRoutes: boolean | undefined;

  const missing = (feature: string, path: string, error: RemoteError) =>
    new FeatureMissing(
      feature,
      path,
      `The server of remote "${remote.name}" has no ${path} route (${error.status}) and no enabled plugin falls back; upgrade the service.`,
    );
  const noBlobRoutes = (status: number) =>
    new FeatureMissing(
      'blobs',
      BLOBS_ROUTE,
      `The server of remote "${remote.name}" has no ${BLOBS_ROUTE} route (${status}) and no enabled plugin falls back; upgrade the service.`,
    );

  return {
    limits: { itemsPerRequest: ITEMS_PER_REQUEST, bytesPerRequest: CLIENT_BYTES_PER_REQUEST, pageSize: PAGE_SIZE },
    location: root,

    async identify(): Promise<Identity> {
      let value: unknown;
      try {
        value = await client.getJson(WHOAMI_ROUTE);
      } catch (error) {
        throw isRouteMissing(error) ? missing('whoami', WHOAMI_ROUTE, error) : error;
      }
      return identityOf(value, speaker, WHOAMI_ROUTE);
    },

    async send(family: FamilyDefinition, texts: readonly string[]): Promise<SendAnswer> {
      const path = syncRoute(family.name);
      try {
        return sendAnswerOf(await client.postJsonText(path, uploadBody(texts)));
      } catch (error) {
        if (isRouteMissing(error)) throw missing(family.name, path, error);
        throw isRefusal(error) ? batchRefused(error, texts.length) : error;
      }
    },

    async page(family: FamilyDefinition, query: PageQuery): Promise<PageAnswer> {
      const path = syncRoute(family.name);
      let answer: { value: unknown; text: string };
      try {
        answer = await client.getJsonText(path, pageParameters(query));
      } catch (error) {
        throw isRouteMissing(error) ? missing(family.name, path, error) : error;
      }
      // A family without an id member has no id to check from a row's text, and its pages (inline bytes) are not scanned.
      return pageOf(answer.value, answer.text, family.idMember !== null, speaker, path);
    },

    async hasBlob(sha256: string): Promise<boolean> {
      if (blobRoutes === false) throw noBlobRoutes(404);
      const { status } = await client.head(blobRoute(sha256), BLOB_HEAD_STATUSES);
      if (status === 200) return true;
      if (status === 404 && (blobRoutes ??= await blobRoutePresent(client))) return false;
      blobRoutes = false;
      throw noBlobRoutes(status);
    },

    async putBlob(sha256: string, size: number, open: () => Readable): Promise<{ alreadyPresent: boolean }> {
      try {
        const { status } = await client.postStream(BLOBS_ROUTE, open, blobUploadHeaders(sha256, size));
        return { alreadyPresent: status === 200 };
      } catch (error) {
        if (isRouteMissing(error)) throw missing('blobs', BLOBS_ROUTE, error);
        throw isRefusal(error) ? new ItemsRefused(error.code, error.message) : error;
      }
    },

    async getBlob<T>(sha256: string, consume: (body: Readable) => Promise<T>): Promise<T> {
      const path = blobRoute(sha256);
      try {
        return await client.download(path, consume);
      } catch (error) {
        if (isRemoteError(error) && (error.status === 405 || error.status === 501)) throw missing('blobs', BLOBS_ROUTE, error);
        // 404: this project holds no such blob (or a server without the route holds none): that row stays unpulled.
        if (isRemoteError(error) && (error.status === 404 || isRefusal(error))) throw new ItemsRefused(error.code, error.message);
        throw error;
      }
    },

    yieldToRequests: letRequestsOut,
    capability: <T>(name: string) => (name === PRIVACY_CAPABILITY ? (privacyChannel(client) as T) : undefined),
    close: () => client.close(),
  };
}

/** A refusal of what was sent (400/409/413/422), as opposed to auth, scope or the network, which stop the run. */
function isRefusal(error: unknown): error is RemoteError {
  return isRemoteError(error) && error.exitCode === ExitCode.validation;
}

/**
 * 422 invalid_item and secret_detected name the refused items by index (`errors[].index`); any
 * other refusal of a batch names none, and the engine halves it to find them.
 * 409 blob_missing: pointer rows whose bytes the remote lacks.
 */
function batchRefused(error: RemoteError, count: number): ItemsRefused {
  const items = new Map<number, string>();
  if (error.code === 'invalid_item' || error.code === 'secret_detected') {
    for (const entry of error.problem.errors ?? []) {
      const { index } = entry;
      if (!Number.isInteger(index) || index! < 0 || index! >= count) continue;
      const said = `${entry.field ?? 'item'} ${entry.message ?? 'is invalid'}`;
      items.set(index!, items.has(index!) ? `${items.get(index!)}; ${said}` : said);
    }
  }
  return new ItemsRefused(error.code, error.message, items, error.code === 'blob_missing');
}
