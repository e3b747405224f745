// The HTTP client as one remote needs it: the bearer token and the
// X-Tracer-Org / X-Tracer-Project target on every request (wire contract
// "Authentication and target"), and failures worded with the remote's name and
// what to do about them.
import { HttpClient, type Wording } from '../net/http-client.js';
import type { ClientSettings } from '../net/settings.js';
import { parseProblem, remoteErrorFrom, type RemoteIdentity } from './problem.js';

export interface RemoteTarget extends RemoteIdentity {
  /** Where `/api/v1/...` routes live (routes.ts apiRoot()). */
  apiRoot: string;
  token?: string;
}

export function remoteHeaders(target: RemoteTarget): Record<string, string> {
  const headers: Record<string, string> = { 'x-tracer-org': target.org, 'x-tracer-project': target.project };
  if (target.token) headers.authorization = `Bearer ${target.token}`;
  return headers;
}

export function remoteWording(target: RemoteTarget): Wording {
  const { name } = target;
  return {
    refusal: (status, body, method, path) => remoteErrorFrom(status, parseProblem(status, body), target, method, path),
    unreachable: (reason) =>
      `Cannot reach remote "${name}" at ${target.apiRoot} (${reason}); check the URL with tracer remote show ${name} and that the service is running.`,
    timedOut: (method, path) =>
      `${method} ${path} on remote "${name}" timed out after retries; check the network or raise TRACER_HTTP_TIMEOUT_MS.`,
    notJson: (_method, path, excerpt) =>
      `Remote "${name}" answered ${path} with something that is not JSON (${excerpt}); check that ${target.url} points at a tracer service.`,
  };
}

export function remoteClient(target: RemoteTarget, settings?: ClientSettings): HttpClient {
  return new HttpClient({ baseUrl: target.apiRoot, headers: remoteHeaders(target), settings, wording: remoteWording(target) });
}
