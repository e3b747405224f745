// The client of GET /api/v1/audit (issue 31), for `tracer audit` and `tracer
// audit verify`: an admin token (of the org, to verify the chain) or the
// service's TRACER_ADMIN_SECRET, through the one HTTP client (src/net/).
import { ExitCode, TracerError } from '../core/errors.js';
import type { ChainEntry } from '../core/audit-chain.js';
import type { ParsedRemoteUrl } from '../core/remote-url.js';
import type { Kernel } from '../kernel/kernel.js';
import { HttpClient } from '../net/http-client.js';
import { settingsFromEnv } from '../net/settings.js';
import { remoteWording } from '../protocol/remote-client.js';
import { apiRoot, AUDIT_ROUTE } from '../protocol/routes.js';
import { ADMIN_SECRET_ENV } from '../server/admin-client.js';

export interface AuditLog {
  org_slug: string;
  scope: 'org' | 'project';
  entries: ChainEntry[];
  head: { n: number; hash: string } | null;
}

/** Which credential: --token-env's variable, else TRACER_ADMIN_SECRET, else the token of this project's remote for the URL. */
export async function auditCredential(
  kernel: Kernel,
  target: ParsedRemoteUrl,
  tokenEnv: string | undefined,
): Promise<{ token: string; source: string }> {
  const env = kernel.context.env;
  if (tokenEnv !== undefined) {
    const token = env[tokenEnv];
    if (!token)
      throw new TracerError('token_env_unset', `--token-env names ${tokenEnv}, which is not set; export the admin token in it.`, {
        exitCode: ExitCode.auth,
      });
    return { token, source: `env:${tokenEnv}` };
  }
  if (env[ADMIN_SECRET_ENV]) return { token: env[ADMIN_SECRET_ENV]!, source: ADMIN_SECRET_ENV };
  const project = kernel.context.project;
  if (project) {
    const { readRemotes } = await import('../store/remotes.js');
    const { resolveRemote } = await import('../engine/session.js');
    const entry = Object.entries((await readRemotes(project.dir)).remotes).find(([, record]) => record.url === target.url && record.auth);
    if (entry) {
      const remote = await resolveRemote(kernel, { project, name: entry[0], purpose: 'sync' });
      if (remote.token) return { token: remote.token, source: `remote "${remote.name}" (${remote.tokenSource})` };
    }
  }
  throw new TracerError(
    'admin_credentials_missing',
    `Reading the audit log needs an admin token or the admin secret: set ${ADMIN_SECRET_ENV}, pass --token-env <VAR> naming a variable that holds a token of role admin, or run it in a project whose remote for ${target.url} has one.`,
    { exitCode: ExitCode.auth },
  );
}

/** Every entry of the URL's org (or, for a project admin token, of its project) from `after` on, and the head. */
export async function readAuditLog(
  kernel: Kernel,
  target: ParsedRemoteUrl,
  credential: { token: string; source: string },
  since?: string,
): Promise<AuditLog> {
  const client = new HttpClient({
    baseUrl: apiRoot(target),
    headers: { authorization: `Bearer ${credential.token}`, 'x-tracer-org': target.org_slug, 'x-tracer-project': target.project_slug },
    settings: settingsFromEnv(kernel.context.env),
    wording: remoteWording({
      name: target.url,
      url: target.url,
      org: target.org_slug,
      project: target.project_slug,
      apiRoot: apiRoot(target),
      hasToken: true,
      tokenSource: credential.source,
    }),
  });
  try {
    const log: AuditLog = { org_slug: target.org_slug, scope: 'org', entries: [], head: null };
    let after = '0';
    for (;;) {
      const page = await client.getJson<{
        scope?: string;
        entries?: ChainEntry[];
        head?: { n: number; hash: string } | null;
        next_cursor?: string;
        has_more?: boolean;
      }>(AUDIT_ROUTE, { after, limit: 1000, since });
      log.scope = page.scope === 'project' ? 'project' : 'org';
      log.entries.push(...(page.entries ?? []));
      log.head = page.head ?? null;
      if (!page.has_more || page.next_cursor === undefined || page.next_cursor === after) return log;
      after = page.next_cursor;
    }
  } finally {
    client.close();
  }
}
