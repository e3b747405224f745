// The client side of the admin routes (wire contract "Administration"), for
// `tracer project create`, `tracer token create` and `remote add --create`: the
// one HTTP client (src/net/), so the same retry, time-outs and failure codes
// (network_error, timeout) as a push.
import { ExitCode, TracerError } from '../core/errors.js';
import type { ParsedRemoteUrl } from '../core/remote-url.js';
import { HttpClient, type Wording } from '../net/http-client.js';
import { settingsFromEnv } from '../net/settings.js';
import { parseProblem, type Problem } from '../protocol/problem.js';
import { ADMIN_PROJECTS_ROUTE, ADMIN_TOKENS_REVOKE_ROUTE, ADMIN_TOKENS_ROUTE, apiRoot } from '../protocol/routes.js';

export const ADMIN_SECRET_ENV = 'TRACER_ADMIN_SECRET';

export interface RegisteredProject {
  org_slug: string;
  project_slug: string;
  /** False when the project already existed (a no-op). */
  created: boolean;
}

export interface CreatedToken {
  token: string;
  org_slug: string;
  project_slug: string | null;
  scope: 'org' | 'project';
  name: string;
  /** Absent from services older than roles (issue 31). */
  role?: 'push' | 'read' | 'admin';
}

/** The admin secret from the environment (spec §5.2 rule 3), or a clear error. */
export function adminSecretFrom(env: NodeJS.ProcessEnv): string {
  const secret = env[ADMIN_SECRET_ENV];
  if (!secret) {
    throw new TracerError(
      'admin_secret_missing',
      `${ADMIN_SECRET_ENV} is not set; export the service's admin secret to register projects and create tokens.`,
      {
        exitCode: ExitCode.auth,
      },
    );
  }
  return secret;
}

/** Registers the URL's org/project on its service: 201 created, 200 already there. */
export async function registerProjectOnService(
  target: ParsedRemoteUrl,
  adminSecret: string,
  env: NodeJS.ProcessEnv,
): Promise<RegisteredProject> {
  const { status, body } = await adminPost(target, ADMIN_PROJECTS_ROUTE, adminSecret, env, {
    org_slug: target.org_slug,
    project_slug: target.project_slug,
  });
  return { org_slug: String(body.org_slug), project_slug: String(body.project_slug), created: status === 201 };
}

/**
 * A new token for the URL's project, or for its whole org. Retried like every
 * request: a reset after the service created one leaves that token unused
 * (it was never shown), and the retry makes another.
 */
export async function createTokenOnService(
  target: ParsedRemoteUrl,
  adminSecret: string,
  input: { orgWide: boolean; name: string; role?: 'push' | 'read' | 'admin' },
  env: NodeJS.ProcessEnv,
): Promise<CreatedToken> {
  const { body } = await adminPost(target, ADMIN_TOKENS_ROUTE, adminSecret, env, {
    org_slug: target.org_slug,
    project_slug: input.orgWide ? null : target.project_slug,
    name: input.name,
    ...(input.role ? { role: input.role } : {}),
  });
  return body as unknown as CreatedToken;
}

/** Revokes every token of this name for the URL's project (or its org); how many there were. */
export async function revokeTokenOnService(
  target: ParsedRemoteUrl,
  adminSecret: string,
  input: { orgWide: boolean; name: string },
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const { body } = await adminPost(target, ADMIN_TOKENS_REVOKE_ROUTE, adminSecret, env, {
    org_slug: target.org_slug,
    project_slug: input.orgWide ? null : target.project_slug,
    name: input.name,
  });
  return Number(body.revoked ?? 0);
}

async function adminPost(
  target: ParsedRemoteUrl,
  path: string,
  adminSecret: string,
  env: NodeJS.ProcessEnv,
  payload: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const client = new HttpClient({
    baseUrl: apiRoot(target),
    headers: {
      authorization: `Bearer ${adminSecret}`,
      'x-tracer-org': target.org_slug,
      'x-tracer-project': target.project_slug,
    },
    settings: settingsFromEnv(env),
    wording: adminWording(target),
  });
  try {
    return await client.postJsonWithStatus<Record<string, unknown>>(path, payload);
  } finally {
    client.close();
  }
}

function adminWording(target: ParsedRemoteUrl): Wording {
  const service = `the service at ${target.base_url}`;
  return {
    refusal: (status, body) => adminFailure(status, parseProblem(status, body), target),
    unreachable: (reason) =>
      `The service at ${target.base_url} did not answer (${reason}); check the URL and that tracer serve is running.`,
    timedOut: (method, path) =>
      `${method} ${path} on ${service} timed out after retries; check the network or raise TRACER_HTTP_TIMEOUT_MS.`,
    notJson: (_method, path, excerpt) =>
      `The service at ${target.base_url} answered ${path} with something that is not JSON (${excerpt}); check that the URL points at a tracer service.`,
  };
}

function adminFailure(status: number, problem: Problem, target: ParsedRemoteUrl): TracerError {
  const { code } = problem;
  const detail = typeof problem.detail === 'string' ? problem.detail.replace(/[.\s]+$/, '') : undefined;
  if (status === 401) {
    return new TracerError(
      'admin_secret_rejected',
      `The service at ${target.base_url} refused the admin secret; check ${ADMIN_SECRET_ENV} against the service's own setting.`,
      { exitCode: ExitCode.auth },
    );
  }
  if (code === 'admin_disabled') {
    return new TracerError(
      'admin_disabled',
      `Administration is off on the service at ${target.base_url}; its operator must start it with ${ADMIN_SECRET_ENV} set.`,
      { exitCode: ExitCode.auth },
    );
  }
  if (status === 404 && code !== 'project_not_found') {
    return new TracerError(
      'admin_unsupported',
      `The service at ${target.base_url} has no admin routes (HTTP 404); check that the URL points at a tracer service.`,
      { exitCode: ExitCode.network },
    );
  }
  if (code && detail)
    return new TracerError(code, `The service refused: ${detail}.`, { exitCode: status >= 500 ? ExitCode.network : ExitCode.validation });
  return new TracerError('service_error', `The service at ${target.base_url} answered HTTP ${status}; retry later, or check its logs.`, {
    exitCode: ExitCode.network,
  });
}
