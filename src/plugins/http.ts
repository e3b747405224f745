// Interim: the HTTP transport over the existing client, until src/protocol/ lands.
import { apiRoot } from '../core/remote-url.js';
import { itemSpans } from '../core/json-spans.js';
import { ExitCode, TracerError } from '../core/errors.js';
import { FeatureMissing, ItemsRefused, type Identity, type Transport } from '../kernel/transport.js';
import type { TracerPlugin } from '../kernel/kernel.js';
import type { ResolvedRemote } from '../kernel/types.js';
import { letRequestsOut, RemoteClient, settingsFromEnv, type ClientSettings } from '../net/client.js';
import { isRemoteError, isRouteMissing } from '../net/remote-error.js';

const BLOBS = '/api/v1/blobs';
const WHOAMI = '/api/v1/auth/whoami';

function transportFor(remote: ResolvedRemote, quick: boolean | undefined, env: NodeJS.ProcessEnv): Transport {
  const root = apiRoot(remote.target);
  const http = new RemoteClient(
    {
      name: remote.name,
      url: remote.target.url,
      org: remote.target.org_slug,
      project: remote.target.project_slug,
      apiRoot: root,
      token: remote.token,
      hasToken: remote.token !== undefined,
      tokenSource: remote.tokenSource,
    },
    quickened(settingsFromEnv(env), quick),
  );
  const missing = (feature: string, where: string, error: { status: number }) =>
    new FeatureMissing(feature, where, `The server of remote "${remote.name}" has no ${where} route (${error.status})`);
  const refusal = (error: unknown) => {
    if (isRemoteError(error) && error.exitCode === ExitCode.validation) {
      const items = new Map<number, string>();
      for (const entry of error.problem.errors ?? [])
        if (Number.isInteger(entry.index)) {
          const prior = items.get(entry.index!);
          const text = `${entry.field ?? 'item'} ${entry.message ?? 'is invalid'}`;
          items.set(entry.index!, prior ? `${prior}; ${text}` : text);
        }
      return new ItemsRefused(error.code, error.message, error.code === 'invalid_item' ? items : new Map(), error.code === 'blob_missing');
    }
    return error;
  };
  return {
    limits: { itemsPerRequest: 500, bytesPerRequest: 8 * 1024 * 1024, pageSize: 500 },
    location: root,
    async identify() {
      let value: unknown;
      try {
        value = await http.getJson(WHOAMI);
      } catch (error) {
        if (isRouteMissing(error)) throw missing('whoami', WHOAMI, error);
        throw error;
      }
      const whoami = value as Partial<Identity> | null;
      if (
        typeof whoami !== 'object' ||
        whoami === null ||
        typeof whoami.org_slug !== 'string' ||
        (whoami.scope !== 'org' && whoami.scope !== 'project')
      ) {
        throw new TracerError(
          'malformed_response',
          `Remote "${remote.name}" answered ${WHOAMI} without org_slug and scope; check that ${remote.target.url} points at a tracer service.`,
          { exitCode: ExitCode.network },
        );
      }
      return {
        org_slug: whoami.org_slug,
        project_slug: typeof whoami.project_slug === 'string' ? whoami.project_slug : null,
        scope: whoami.scope,
        token_name: whoami.token_name,
      };
    },
    async send(family, texts) {
      const route = `/api/v1/sync/${family.name}`;
      try {
        const answer = await http.postJsonText<{ received?: number; inserted?: number; duplicates?: number }>(
          route,
          `{"items":[${texts.join(',')}]}`,
        );
        return {
          received: Number(answer?.received ?? 0),
          inserted: Number(answer?.inserted ?? 0),
          duplicates: Number(answer?.duplicates ?? 0),
        };
      } catch (error) {
        if (isRouteMissing(error)) throw missing(family.name, route, error);
        throw refusal(error);
      }
    },
    async page(family, query) {
      const route = `/api/v1/sync/${family.name}`;
      let answer;
      try {
        answer = await http.getJsonText<{ items?: unknown; next_cursor?: unknown; has_more?: unknown }>(route, {
          after: query.after,
          limit: query.limit,
          since: query.since,
        });
      } catch (error) {
        if (isRouteMissing(error)) throw missing(family.name, route, error);
        throw error;
      }
      const page = answer.value;
      if (
        typeof page !== 'object' ||
        page === null ||
        !Array.isArray(page.items) ||
        !(page.next_cursor === null || page.next_cursor === undefined || typeof page.next_cursor === 'string')
      ) {
        throw new TracerError(
          'malformed_response',
          `Remote "${remote.name}" answered GET ${route} without an items list; check that ${remote.target.url} points at a tracer service.`,
          { exitCode: ExitCode.network },
        );
      }
      const items = page.items as unknown[];
      const spans = family.idMember === null ? undefined : itemSpans(answer.text);
      const texts = spans?.length === items.length ? spans.map(([from, to]) => answer.text.slice(from, to)) : undefined;
      return { items, texts, next: (page.next_cursor as string | null | undefined) ?? null, hasMore: page.has_more === true };
    },
    async hasBlob(sha) {
      const head = await http.head(`${BLOBS}/${sha}`, [200, 404, 405, 501]);
      if (head.status === 200) return true;
      if (head.status === 404) {
        const probe = await http.head(`${BLOBS}/probe`, [400, 404, 405, 501]);
        if (probe.status === 400) return false;
      }
      throw missing('blobs', BLOBS, head);
    },
    async putBlob(sha, size, open) {
      try {
        const { status } = await http.postStream(BLOBS, open, {
          'content-type': 'application/octet-stream',
          'content-length': String(size),
          'x-content-sha256': sha,
        });
        return { alreadyPresent: status === 200 };
      } catch (error) {
        if (isRouteMissing(error)) throw missing('blobs', BLOBS, error);
        throw refusal(error);
      }
    },
    async getBlob(sha, consume) {
      try {
        return await http.download(`${BLOBS}/${sha}`, (body) => consume(body));
      } catch (error) {
        if (isRemoteError(error) && error.exitCode !== ExitCode.auth && error.exitCode !== ExitCode.scope)
          throw new ItemsRefused(error.code, error.message);
        throw error;
      }
    },
    yieldToRequests: letRequestsOut,
    close: () => http.close(),
  };
}

const QUICK_TIMEOUT_MS = 10_000;
function quickened(settings: ClientSettings, quick: boolean | undefined): ClientSettings {
  if (!quick) return settings;
  const timeoutMs = Math.min(settings.timeoutMs, QUICK_TIMEOUT_MS);
  return { ...settings, timeoutMs, transferTimeoutMs: timeoutMs, retry: { ...settings.retry, attempts: 1 } };
}

const httpPlugin: TracerPlugin = {
  name: 'http',
  apply(kernel) {
    kernel.hooks.connect.tapPromise('http', async (remote, request) =>
      /^https?:/.test(remote.target.url) ? transportFor(remote, request.quick, kernel.context.env) : undefined,
    );
  },
};

export default httpPlugin;
