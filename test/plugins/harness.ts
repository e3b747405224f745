import { parseRemoteUrl } from '../../src/core/remote-url.js';
import { apiRoot } from '../../src/protocol/routes.js';
import { Kernel, type TracerPlugin } from '../../src/kernel/kernel.js';
import { sessionFor } from '../../src/kernel/sync-session.js';
import type { PushOptions, ResolvedRemote, SyncSession } from '../../src/kernel/types.js';
import type { Project } from '../../src/store/project.js';
import { tempDir } from '../helpers/cli.js';

/**
 * A kernel with exactly the plugins a test names, and a session against a nock
 * host: plugin tests exercise taps without a CLI or a service.
 */
export const BASE = 'http://plugins.test';

export async function kernelWith(...plugins: TracerPlugin[]): Promise<{ kernel: Kernel; project: Project }> {
  const dir = tempDir('tracer-plugin-');
  const project: Project = { id: 'project-1', dir, anchor: `${dir}/tracer-id`, git: { worktree: dir, gitDir: dir, commonDir: dir } };
  const kernel = new Kernel({ home: tempDir('tracer-plugin-home-'), cwd: dir, env: { TRACER_HTTP_ATTEMPTS: '1' }, project });
  for (const plugin of plugins) await kernel.use(plugin);
  return { kernel, project };
}

export function remote(url = `${BASE}/acme/web`, token = 'tok'): ResolvedRemote {
  const target = parseRemoteUrl(url);
  return {
    name: 'origin',
    record: { url: target.url, org_slug: target.org_slug, project_slug: target.project_slug, base_url: target.base_url },
    target,
    apiRoot: apiRoot(target),
    token,
    tokenSource: 'config.json',
  };
}

export function session(
  kernel: Kernel,
  project: Project,
  options: { push?: Partial<PushOptions>; url?: string; direction?: SyncSession['direction'] } = {},
) {
  const push = options.push ? { full: false, dryRun: false, ...options.push } : undefined;
  return sessionFor(kernel, project, remote(options.url), { direction: options.direction ?? 'push', push, dryRun: push?.dryRun ?? false });
}
