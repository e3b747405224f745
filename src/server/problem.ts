// RFC 9457 problem details (wire contract "Transport and errors"). Every error the
// service answers is one of these; clients branch on `code`, never on the text.
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface ValidationError {
  index: number;
  field: string;
  message: string;
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  request_id: string;
  errors?: ValidationError[];
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';
const TYPE_BASE = 'https://tracer.dev/problems/';

/** Titles are fixed per code (RFC 9457: the title does not change between occurrences). */
const TITLES: Record<string, string> = {
  unauthorized: 'Missing or unknown token',
  forbidden: 'Token does not cover this project',
  target_missing: 'No target project',
  invalid_target: 'Invalid target project',
  target_mismatch: 'Target headers and path disagree',
  project_not_found: 'Project not registered',
  not_found: 'Not found',
  invalid_json: 'Malformed JSON',
  invalid_body: 'Invalid request body',
  invalid_cursor: 'Invalid cursor',
  invalid_query: 'Invalid query parameter',
  unsupported_media_type: 'Unsupported media type',
  body_too_large: 'Request body too large',
  too_many_items: 'Too many items',
  invalid_item: 'Invalid item',
  content_id_mismatch: 'Content id mismatch',
  blob_missing: 'Blob not held',
  invalid_sha: 'Invalid SHA-256',
  sha_mismatch: 'SHA-256 mismatch',
  blob_too_large: 'Blob too large',
  secret_detected: 'Secret detected',
  admin_disabled: 'Administration is off',
  role_forbids: "Token's role does not allow this",
  invalid_request: 'Malformed request',
  headers_too_large: 'Request headers too large',
  request_timeout: 'Request timed out',
  internal_error: 'Internal error',
  service_unavailable: 'Service unavailable',
};

/** Thrown by routes and storage; the error handler turns it into a problem response. */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
    readonly errors?: ValidationError[],
  ) {
    super(detail);
  }
}

/** 422 invalid_body naming every bad member of a request body (admin, forget, retention). */
export function invalidBody(errors: ValidationError[]): ProblemError {
  return new ProblemError(
    422,
    'invalid_body',
    `The body is invalid: ${errors.map((error) => `${error.field} ${error.message}`).join('; ')}.`,
    errors,
  );
}

export function problemBody(status: number, code: string, detail: string, requestId: string, errors?: ValidationError[]): Problem {
  const problem: Problem = { type: `${TYPE_BASE}${code}`, title: TITLES[code] ?? code, status, detail, code, request_id: requestId };
  if (errors) problem.errors = errors;
  return problem;
}

export function sendProblem(request: FastifyRequest, reply: FastifyReply, error: ProblemError): FastifyReply {
  return reply
    .code(error.status)
    .type(PROBLEM_CONTENT_TYPE)
    .send(problemBody(error.status, error.code, error.message, String(request.id), error.errors));
}

/**
 * Fastify's own errors (body parsing, limits) mapped to the contract's codes, so
 * nothing leaks Fastify's default error shape.
 */
export function problemFromError(error: unknown): ProblemError {
  if (error instanceof ProblemError) return error;
  const fastifyError = error as { code?: string; statusCode?: number; message?: string };
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ProblemError(
        413,
        'body_too_large',
        'The request body is larger than this service accepts; send fewer or smaller items per request.',
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ProblemError(
        415,
        'unsupported_media_type',
        'This route does not accept that Content-Type; send application/json (blob bytes: application/octet-stream).',
      );
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ProblemError(
        400,
        'invalid_request',
        'The body is not as long as its Content-Length says; send the whole body with its true length.',
      );
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ProblemError(400, 'invalid_json', 'The body is empty; send a JSON object.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ProblemError(400, 'invalid_json', 'The body is not valid JSON; send a JSON object.');
  }
  if (error instanceof SyntaxError && fastifyError.statusCode === 400) {
    return new ProblemError(400, 'invalid_json', `The body is not valid JSON (${error.message}); send a JSON object.`);
  }
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return new ProblemError(fastifyError.statusCode, 'invalid_request', `${fastifyError.message ?? 'The request is invalid'}.`);
  }
  return new ProblemError(
    500,
    'internal_error',
    'The service failed to handle this request; retry, and report it with the request id if it persists.',
  );
}
