import type { TracerWarning } from '../core/errors.js';
import { ExitCode, TracerError } from '../core/errors.js';
import type { CredentialPurpose } from '../store/credentials.js';
import type { Project } from '../store/project.js';
import { appendPushLog } from './push-log.js';
import type { Kernel } from '../kernel/kernel.js';
import type { PushOptions, RemoteQuery, ResolvedRemote, SyncSession } from '../kernel/types.js';

// Opens a session against one remote: resolves it, then connects through whichever
// plugin speaks its URL (the transport), all through the kernel's hooks.

export interface SessionRequest {
  direction: SyncSession['direction'];
  remote?: string;
  purpose?: CredentialPurpose;
  dryRun?: boolean;
  push?: PushOptions;
  /** Where warnings go as they happen (the command decides whether to show them). */
  onWarning?: (warning: TracerWarning) => void;
  /** One attempt and a short time-out: for checks that must not hold a command up. */
  quick?: boolean;
}

export interface OpenSession {
  session: SyncSession;
  warnings: TracerWarning[];
  close(): void;
}

export function requireProject(kernel: Kernel): Project {
  const { project } = kernel.context;
  if (!project) {
    throw new TracerError(
      'project_not_initialized',
      'This directory is not inside an initialized tracer project; cd into your repository and run tracer init first.',
      {
        exitCode: ExitCode.localState,
      },
    );
  }
  return project;
}

/** The remote a name (or none) designates, with its token: the first resolveRemote tap that answers. */
export async function resolveRemote(kernel: Kernel, query: RemoteQuery): Promise<ResolvedRemote> {
  const remote = await kernel.hooks.resolveRemote.promise(query);
  if (!remote) {
    throw new TracerError('remote_unresolved', 'No enabled plugin resolves remotes; check the enabled plugins with tracer plugins.', {
      exitCode: ExitCode.localState,
    });
  }
  return remote;
}

export async function openSession(kernel: Kernel, request: SessionRequest): Promise<OpenSession> {
  const project = requireProject(kernel);
  const remote = await resolveRemote(kernel, { project, name: request.remote, purpose: request.purpose ?? 'sync' });
  return sessionFor(kernel, project, remote, request);
}

/** A session for a remote resolved elsewhere, e.g. one `remote add` has not written yet. */
export async function sessionFor(
  kernel: Kernel,
  project: Project,
  remote: ResolvedRemote,
  request: Omit<SessionRequest, 'remote' | 'purpose'>,
): Promise<OpenSession> {
  const transport = await kernel.hooks.connect.promise(remote, { quick: request.quick });
  if (!transport) {
    throw new TracerError(
      'transport_unavailable',
      `No enabled plugin can reach remote "${remote.name}" at ${remote.target.url}; check the enabled plugins with tracer plugins.`,
      { exitCode: ExitCode.localState },
    );
  }
  const warnings: TracerWarning[] = [];
  const warn = (warning: TracerWarning) => {
    warnings.push(warning);
    request.onWarning?.(warning);
  };
  const session: SyncSession = {
    direction: request.direction,
    project,
    remote,
    transport,
    dryRun: request.dryRun ?? false,
    push: request.push,
    warn,
    async log(entry) {
      warn({ code: entry.code, message: entry.message });
      if (!session.dryRun) appendPushLog(project.dir, { remote: remote.name, ...entry });
    },
    state: new Map(),
  };
  return { session, warnings, close: () => transport.close() };
}

/**
 * The scope pre-flight alone (spec §4.4), for doctor, remote add and project
 * create: runs the preflight hook against `remote`. Throws what the hook throws
 * (org_slug_mismatch, project_scope_mismatch, ...); returns the warnings
 * (whoami_unsupported) and what plugins left in the session state.
 */
export async function preflightRemote(
  kernel: Kernel,
  project: Project,
  remote: ResolvedRemote,
  options: { quick?: boolean } = {},
): Promise<{ warnings: TracerWarning[]; state: Map<string, unknown>; location: string }> {
  const { session, warnings, close } = await sessionFor(kernel, project, remote, { direction: 'check', quick: options.quick });
  try {
    await kernel.hooks.preflight.promise(session);
    return { warnings, state: session.state, location: session.transport.location };
  } finally {
    close();
  }
}
