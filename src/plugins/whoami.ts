import { ExitCode, TracerError } from '../core/errors.js';
import type { TracerPlugin } from '../kernel/kernel.js';
import { identityOf } from '../protocol/bodies.js';
import { isRouteMissing } from '../protocol/problem.js';
import { WHOAMI_ROUTE } from '../protocol/routes.js';
import { STAGE } from '../kernel/stages.js';
import type { SyncSession } from '../kernel/types.js';

/**
 * The scope pre-flight (spec §4.4, §7): `GET /api/v1/auth/whoami` before any
 * push and in doctor / remote add / project create. A token of another org, or a
 * project token for another project, refuses the run; a server without the
 * route is a question for the routeMissing hook (see whoami-unsupported).
 */
/** Where the answer is kept in `session.state`, for doctor and messages. */
export const WHOAMI_STATE = 'whoami';

export interface Whoami {
  org_slug: string;
  project_slug: string | null;
  scope: 'org' | 'project';
  token_name?: string;
}

const whoamiPlugin: TracerPlugin = {
  name: 'whoami',
  apply(kernel) {
    kernel.hooks.preflight.tapPromise({ name: 'whoami', stage: STAGE.native }, async (session) => {
      let answer: unknown;
      try {
        answer = await session.http.getJson(WHOAMI_ROUTE);
      } catch (error) {
        if (!isRouteMissing(error)) throw error;
        const fallback = await kernel.hooks.routeMissing.promise({ feature: 'whoami', route: WHOAMI_ROUTE, status: error.status }, session);
        if (!fallback) {
          throw new TracerError(
            'whoami_unsupported',
            `The server of remote "${session.remote.name}" has no ${WHOAMI_ROUTE} (${error.status}), so the token's scope cannot be checked, and "whoami-unsupported" is switched off; upgrade the service or switch the plugin back on.`,
            {
              exitCode: ExitCode.scope,
            },
          );
        }
        if (fallback.warning) session.warn(fallback.warning);
        session.state.set(WHOAMI_STATE, undefined);
        return;
      }
      const whoami = identityOf(answer, { name: session.remote.name, url: session.remote.target.url }, WHOAMI_ROUTE);
      session.state.set(WHOAMI_STATE, whoami);
      checkScope(whoami, session);
    });
  },
};

/** Spec §7: org differs → org_slug_mismatch; a project token for another project → project_scope_mismatch. */
export function checkScope(whoami: Whoami, session: SyncSession): void {
  const { name } = session.remote;
  const { org_slug: org, project_slug: project } = session.remote.target;
  const token = whoami.token_name ? `token "${whoami.token_name}"` : 'token';
  if (whoami.org_slug !== org) {
    throw new TracerError(
      'org_slug_mismatch',
      `The ${token} of remote "${name}" belongs to org "${whoami.org_slug}", but the URL names org "${org}"; bind a token of org "${org}" with tracer remote set-token ${name} --token <TOKEN>, or fix the URL with tracer remote set-url.`,
      { exitCode: ExitCode.scope },
    );
  }
  if (whoami.scope === 'project' && whoami.project_slug !== project) {
    throw new TracerError(
      'project_scope_mismatch',
      `The ${token} of remote "${name}" is scoped to project "${whoami.org_slug}/${whoami.project_slug}", but the URL names project "${org}/${project}"; bind a token for "${org}/${project}" (or an org token) with tracer remote set-token ${name} --token <TOKEN>.`,
      { exitCode: ExitCode.scope },
    );
  }
}

export default whoamiPlugin;
