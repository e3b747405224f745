import { ExitCode, TracerError } from '../core/errors.js';
import { apiRoot, type ParsedRemoteUrl } from '../core/remote-url.js';

/**
 * The client side of the admin routes (wire contract "Administration"), for
 * `tracer project create`, `tracer token create` and `remote add --create`.
 * Uses Node's own fetch: no heavy import on the CLI's start-up path.
 */
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
export async function registerProjectOnService(target: ParsedRemoteUrl, adminSecret: string): Promise<RegisteredProject> {
  const { status, body } = await adminPost(target, '/api/v1/admin/projects', adminSecret, {
    org_slug: target.org_slug,
    project_slug: target.project_slug,
  });
  return { org_slug: String(body.org_slug), project_slug: String(body.project_slug), created: status === 201 };
}

/** A new token for the URL's project, or for its whole org. */
export async function createTokenOnService(
  target: ParsedRemoteUrl,
  adminSecret: string,
  input: { orgWide: boolean; name: string },
): Promise<CreatedToken> {
  const { body } = await adminPost(target, '/api/v1/admin/tokens', adminSecret, {
    org_slug: target.org_slug,
    project_slug: input.orgWide ? null : target.project_slug,
    name: input.name,
  });
  return body as unknown as CreatedToken;
}

async function adminPost(
  target: ParsedRemoteUrl,
  route: string,
  adminSecret: string,
  payload: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const url = `${apiRoot(target)}${route}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${adminSecret}`,
        'content-type': 'application/json',
        accept: 'application/json',
        'x-tracer-org': target.org_slug,
        'x-tracer-project': target.project_slug,
      },
      body: JSON.stringify(payload),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    const reason = (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message;
    throw new TracerError(
      'service_unreachable',
      `The service at ${target.base_url} did not answer (${reason}); check the URL and that tracer serve is running.`,
      {
        exitCode: ExitCode.network,
        cause: error,
      },
    );
  }
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Not JSON: a proxy's page or a server that is not tracer; judged by status below.
  }
  if (response.status === 200 || response.status === 201) return { status: response.status, body };
  throw adminFailure(response.status, body, target);
}

function adminFailure(status: number, problem: Record<string, unknown>, target: ParsedRemoteUrl): TracerError {
  const code = typeof problem.code === 'string' ? problem.code : undefined;
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
