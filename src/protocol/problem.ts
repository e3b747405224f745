// An RFC 9457 problem answered by the service (wire contract "Transport and
// errors"), turned into a TracerError that keeps the service's stable `code`,
// so callers branch on the code, never on the text; and the rule that tells a
// route this server lacks from a resource it lacks.
import { ExitCode, TracerError } from '../core/errors.js';

export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  code?: string;
  request_id?: string;
  errors?: Array<{ index?: number; field?: string; message?: string }>;
}

/** Who was asked, for messages that say what to do. */
export interface RemoteIdentity {
  name: string;
  url: string;
  org: string;
  project: string;
  hasToken: boolean;
  tokenSource: string;
}

export class RemoteError extends TracerError {
  readonly status: number;
  readonly problem: Problem;

  constructor(status: number, problem: Problem, message: string, exitCode: ExitCode) {
    super(problem.code ?? `http_${status}`, message, { exitCode });
    this.status = status;
    this.problem = problem;
  }
}

export function isRemoteError(error: unknown): error is RemoteError {
  return error instanceof RemoteError;
}

/** Codes a 404 carries when the route exists and the resource does not. */
const RESOURCE_CODES = new Set(['project_not_found', 'blob_not_found', 'not_found_blob']);

/** 404 without a resource code, 405 or 501: "this server has no such route" (an older server). */
export function meansRouteMissing(status: number, code: string | undefined): boolean {
  if (status === 405 || status === 501) return true;
  return status === 404 && (code === undefined || !RESOURCE_CODES.has(code));
}

export function isRouteMissing(error: unknown): error is RemoteError {
  return error instanceof RemoteError && meansRouteMissing(error.status, error.problem.code);
}

/** Parses a problem body leniently: a proxy may answer HTML or nothing at all. */
export function parseProblem(status: number, text: string): Problem {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const problem = value as Problem;
      return { ...problem, code: typeof problem.code === 'string' && /^[a-z][a-z0-9_]*$/.test(problem.code) ? problem.code : undefined };
    }
  } catch {
    // not JSON: described by the status alone
  }
  return { status };
}

export function remoteErrorFrom(status: number, problem: Problem, remote: RemoteIdentity, method: string, route: string): RemoteError {
  const said = sentence(problem.detail ?? problem.title ?? `HTTP ${status}`);
  const where = `${method} ${route} on remote "${remote.name}"`;
  const code = problem.code;
  if (status === 401 || code === 'unauthorized') {
    const message = remote.hasToken
      ? `The server refused the token of remote "${remote.name}" (from ${remote.tokenSource}): ${said}; bind a valid one with tracer remote set-token ${remote.name} --token <TOKEN>.`
      : `Remote "${remote.name}" has no token bound and the server refused the request (${said}); bind one with tracer remote set-token ${remote.name} --token <TOKEN>.`;
    return new RemoteError(status, { ...problem, code: code ?? 'unauthorized' }, message, ExitCode.auth);
  }
  if (code === 'role_forbids') {
    // The token reaches the project but its role does not allow this (issue 31): the service's sentence names the role needed.
    return new RemoteError(status, problem, `Remote "${remote.name}" refused ${method} ${route}: ${said}.`, ExitCode.auth);
  }
  if (status === 403 || code === 'forbidden') {
    return new RemoteError(
      status,
      { ...problem, code: code ?? 'forbidden' },
      `The token of remote "${remote.name}" does not cover ${remote.org}/${remote.project} (${said}); bind a token for that project with tracer remote set-token ${remote.name} --token <TOKEN>.`,
      ExitCode.scope,
    );
  }
  if (code === 'project_not_found') {
    return new RemoteError(
      status,
      problem,
      `Project ${remote.org}/${remote.project} is not registered on the server of remote "${remote.name}"; register it once with tracer project create ${remote.url}.`,
      ExitCode.scope,
    );
  }
  if (code === 'target_mismatch') {
    return new RemoteError(
      status,
      problem,
      `${where} was refused: ${said}; check the URL with tracer remote show ${remote.name}.`,
      ExitCode.scope,
    );
  }
  if (status === 429 || status >= 500) {
    return new RemoteError(
      status,
      problem,
      `${where} kept failing (${status}: ${said}) after retries; try again later or check the service.`,
      ExitCode.network,
    );
  }
  if (status === 400 || status === 409 || status === 413 || status === 422) {
    return new RemoteError(
      status,
      problem,
      `${where} was refused (${status} ${code ?? ''}): ${said}.`.replace(' )', ')'),
      ExitCode.validation,
    );
  }
  return new RemoteError(status, problem, `${where} answered ${status}${code ? ` ${code}` : ''}: ${said}.`, ExitCode.failure);
}

function sentence(text: string): string {
  return text.trim().replace(/[.\s]+$/, '');
}
