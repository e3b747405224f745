// The whoami pre-flight for `remote add` and `project create` (spec §4.4): a
// token whose scope does not match the URL refuses the command before anything
// is written. A server that cannot be asked (offline, old, refusing the token)
// does not: the command goes on with a warning that says to run `tracer doctor`.
import { ExitCode, TracerError, type TracerWarning } from '../core/errors.js';
import { parseRemoteUrl } from '../core/remote-url.js';
import type { Kernel } from '../kernel/kernel.js';
import { preflightRemote, resolveRemote } from './session.js';
import type { ResolvedRemote } from '../kernel/types.js';
import type { Project } from '../store/project.js';
import type { RemoteRecord } from '../store/remotes.js';

const REFUSALS = new Set(['org_slug_mismatch', 'project_scope_mismatch', 'whoami_unsupported']);

export async function checkTokenScope(
  kernel: Kernel,
  project: Project,
  name: string,
  record: RemoteRecord,
  token: string,
  tokenSource: string,
): Promise<TracerWarning[]> {
  const target = parseRemoteUrl(record.url);
  const remote: ResolvedRemote = { name, record, target, token, tokenSource };
  try {
    return (await preflightRemote(kernel, project, remote, { quick: true })).warnings;
  } catch (error) {
    if (error instanceof TracerError && REFUSALS.has(error.code)) throw error;
    // The server answered, and refused the token: say that, not that it could not be asked.
    if (error instanceof TracerError && (error.code === 'unauthorized' || error.code === 'forbidden'))
      return [
        {
          code: 'scope_unchecked',
          message: `${target.base_url} refused this token (${error.code}), so push and pull will fail until the remote has a valid one: tracer remote set-token ${name} --token <TOKEN>.`,
        },
      ];
    const why = error instanceof TracerError ? error.code : error instanceof Error ? error.message : String(error);
    return [
      {
        code: 'scope_unchecked',
        message: `Could not check the token's scope with ${target.base_url} (${why}); run tracer doctor once the server answers.`,
      },
    ];
  }
}

/** project create: the pre-flight runs with the token of this project's remote for the same URL, when there is one. */
export async function checkScopeForUrl(kernel: Kernel, url: string): Promise<TracerWarning[]> {
  const project = kernel.context.project;
  if (!project) return [];
  const { readRemotes } = await import('../store/remotes.js');
  const wanted = parseRemoteUrl(url).url;
  const entry = Object.entries((await readRemotes(project.dir)).remotes).find(([, record]) => record.url === wanted && record.auth);
  if (!entry) return [];
  let remote: ResolvedRemote;
  try {
    remote = await resolveRemote(kernel, { project, name: entry[0], purpose: 'project-create' });
  } catch (error) {
    if (error instanceof TracerError && error.exitCode === ExitCode.auth)
      return [{ code: 'scope_unchecked', message: `${error.message} The token's scope was not checked.` }];
    throw error;
  }
  return remote.token ? checkTokenScope(kernel, project, remote.name, remote.record, remote.token, remote.tokenSource) : [];
}
