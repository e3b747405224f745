// `tracer doctor` (spec §4.5): for every remote, the URL parses, the token
// resolves, the server answers, and whoami matches the URL. One line per check;
// the exit code is the category of the first failure (0 when all pass).
import type { Writable } from 'node:stream';
import { errorJson, ExitCode, TracerError, type TracerWarning } from '../core/errors.js';
import { parseRemoteUrl } from '../core/remote-url.js';
import type { Kernel } from '../kernel/kernel.js';
import { preflightRemote, requireProject, resolveRemote } from './session.js';
import { readRemotes } from '../store/remotes.js';
import { writeJson } from './transfer-commands.js';

export interface Check {
  remote?: string;
  check: 'remotes' | 'url' | 'token' | 'server' | 'whoami';
  ok: boolean;
  detail: string;
  code?: string;
}

/** The codes of a remote that did not answer at all (src/net/http-client.ts); any other failure is an answer. */
const UNREACHABLE = new Set(['network_error', 'timeout']);

export async function doctorCommand(io: { kernel: Kernel; stdout: Writable; json?: boolean }): Promise<number> {
  const project = requireProject(io.kernel);
  const remotes = (await readRemotes(project.dir)).remotes;
  const checks: Check[] = [];
  let exitCode: number = ExitCode.ok;
  const fail = (check: Check, error: unknown) => {
    const described = errorJson(error);
    checks.push({ ...check, ok: false, detail: described.message, code: described.code });
    if (exitCode === ExitCode.ok) exitCode = error instanceof TracerError ? error.exitCode : ExitCode.failure;
  };
  if (Object.keys(remotes).length === 0) {
    fail(
      { check: 'remotes', ok: false, detail: '' },
      new TracerError('no_remote', 'This project has no remote; add one with tracer remote add <name> <url> --token <TOKEN>.', {
        exitCode: ExitCode.usage,
      }),
    );
  }
  for (const [name, record] of Object.entries(remotes)) {
    try {
      parseRemoteUrl(record.url);
      checks.push({ remote: name, check: 'url', ok: true, detail: `${record.url} parses` });
    } catch (error) {
      fail({ remote: name, check: 'url', ok: false, detail: '' }, error);
      continue;
    }
    let remote;
    try {
      remote = await resolveRemote(io.kernel, { project, name, purpose: 'doctor' });
      if (remote.token === undefined)
        throw new TracerError(
          'token_unbound',
          `Remote "${name}" has no token bound, so the server will refuse it; bind one with tracer remote set-token ${name} --token <TOKEN>.`,
          { exitCode: ExitCode.auth },
        );
      checks.push({ remote: name, check: 'token', ok: true, detail: `bound (${remote.tokenSource})` });
    } catch (error) {
      fail({ remote: name, check: 'token', ok: false, detail: '' }, error);
      if (!remote) continue;
    }
    try {
      const { warnings, state, location } = await preflightRemote(io.kernel, project, remote);
      checks.push({ remote: name, check: 'server', ok: true, detail: `${location} answers` });
      const whoami = state.get('whoami') as
        { org_slug: string; project_slug: string | null; scope: string; token_name?: string } | undefined;
      checks.push({
        remote: name,
        check: 'whoami',
        ok: true,
        detail: whoami
          ? `token ${whoami.token_name ? `"${whoami.token_name}" ` : ''}(${whoami.scope} scope, ${whoami.org_slug}${whoami.project_slug ? `/${whoami.project_slug}` : ''}) matches ${remote.target.org_slug}/${remote.target.project_slug}`
          : describeWarnings(warnings),
      });
      for (const warning of warnings) io.kernel.warn(warning);
    } catch (error) {
      // Any answer proves the server is there; only a failure to reach it at all says it is not.
      const answered = error instanceof TracerError && !UNREACHABLE.has(error.code);
      if (answered) {
        checks.push({ remote: name, check: 'server', ok: true, detail: `${remote.target.url} answers` });
        fail({ remote: name, check: 'whoami', ok: false, detail: '' }, error);
      } else {
        fail({ remote: name, check: 'server', ok: false, detail: '' }, error);
      }
    }
  }
  if (io.json) {
    writeJson(io.stdout, { ok: exitCode === ExitCode.ok, project: project.id, checks });
  } else {
    for (const check of checks) {
      const where = check.remote ? `${check.remote} ` : '';
      io.stdout.write(
        `${check.ok ? 'ok  ' : 'FAIL'}  ${where}${check.check}: ${check.detail}${check.code && !check.ok ? ` (${check.code})` : ''}\n`,
      );
    }
    const failed = checks.filter((check) => !check.ok).length;
    io.stdout.write(failed === 0 ? 'All checks passed.\n' : `${failed} check${failed === 1 ? '' : 's'} failed.\n`);
  }
  return exitCode;
}

function describeWarnings(warnings: readonly TracerWarning[]): string {
  return warnings.length > 0 ? `not checked: ${warnings.map((warning) => warning.code).join(', ')}` : 'not checked';
}
