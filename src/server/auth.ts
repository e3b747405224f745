// Tokens are 256 random bits, so a plain SHA-256 is a safe storage form: the
// service keeps only the hash and shows the token once, at creation.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { ProblemError } from './problem.js';
import type { TokenRecord, TraceStorage } from './storage/types.js';

export const TOKEN_PREFIX = 'trc_';

export function newToken(): string {
  return `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Compares two secrets in time independent of where they differ (digests first, so lengths leak nothing). */
export function secretsEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match?.[1];
}

/** The token of this request, or 401 unauthorized. */
export async function authenticate(request: FastifyRequest, storage: TraceStorage): Promise<TokenRecord> {
  const token = bearerToken(request);
  if (!token) throw unauthorized('This route needs a token: send Authorization: Bearer <token>.');
  const hash = hashToken(token);
  const record = await storage.findToken(hash);
  // The lookup is by hash, so a timing difference reveals nothing about the token; the
  // explicit compare keeps the rule "compare in constant time" true whatever the backend does.
  if (!record || !timingSafeEqual(Buffer.from(record.hash, 'hex'), Buffer.from(hash, 'hex'))) {
    throw unauthorized('The token is not known to this service; check the token bound to the remote (tracer remote show).');
  }
  return record;
}

/** Whether a token reaches a project: an org token every project of its org, a project token its own only. */
export function tokenCovers(token: TokenRecord, org: string, project: string): boolean {
  return token.org_slug === org && (token.project_slug === null || token.project_slug === project);
}

export function unauthorized(detail: string): ProblemError {
  return new ProblemError(401, 'unauthorized', detail);
}
