// Token roles (issue 31): `push` may upload and check what the service already
// holds; `read` may also pull and open transcripts (what every token could do
// before roles existed, and the default); `admin` may also forget and set
// retention within its scope. Each allows what the one before it does.
import { ProblemError } from './problem.js';
import type { Role, TokenRecord } from './storage/types.js';

export const ROLES: readonly Role[] = ['push', 'read', 'admin'];
export const DEFAULT_ROLE: Role = 'read';

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

export function roleAllows(held: Role, needed: Role): boolean {
  return ROLES.indexOf(held) >= ROLES.indexOf(needed);
}

/** 403 role_forbids unless the token's role reaches `needed`; `what` names the act, e.g. "Pulling conversations". */
export function requireRole(token: TokenRecord, needed: Role, what: string): void {
  if (roleAllows(token.role, needed)) return;
  throw new ProblemError(
    403,
    'role_forbids',
    `${what} needs a token of role ${needed}${needed === 'admin' ? '' : ' or admin'}, and token "${token.name}" has role ${token.role}; use a token made with tracer token create --role ${needed}.`,
  );
}
