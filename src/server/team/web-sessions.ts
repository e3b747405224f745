// Browser sign-in sessions of the team view, kept in the service's database so
// that several `tracer serve` processes on one PostgreSQL share them. The
// cookie holds a random id; the table holds its SHA-256 and the hash of the
// token it was opened with (never the token), so a stolen database row opens
// nothing, and a session ends with its token's row.
import { randomBytes } from 'node:crypto';
import { hashToken } from '../auth.js';
import type { TokenRecord, TraceStorage } from '../storage/types.js';

/** A signed-in browser stays signed in this long, then signs in again. */
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;

export async function openWebSession(storage: TraceStorage, token: TokenRecord, now = Date.now()): Promise<string> {
  // Expired sessions are cleared as new ones open: the table holds the live ones and few others.
  await storage.execute('DELETE FROM web_sessions WHERE expires_ms < ?', [now]);
  const id = randomBytes(32).toString('base64url');
  await storage.execute('INSERT INTO web_sessions (id_hash, token_hash, expires_ms) VALUES (?, ?, ?)', [
    hashToken(id),
    token.hash,
    now + SESSION_LIFETIME_MS,
  ]);
  return id;
}

/** The token behind a live session id, or undefined. */
export async function webSessionToken(storage: TraceStorage, id: string | undefined, now = Date.now()): Promise<TokenRecord | undefined> {
  if (!id || id.length > 100) return undefined;
  const [row] = await storage.query<TokenRecord>(
    `SELECT t.hash, t.org_slug, t.project_slug, t.name, t.role FROM web_sessions w JOIN tokens t ON t.hash = w.token_hash
     WHERE w.id_hash = ? AND w.expires_ms > ?`,
    [hashToken(id), now],
  );
  return row;
}

export async function closeWebSession(storage: TraceStorage, id: string | undefined): Promise<void> {
  if (id) await storage.execute('DELETE FROM web_sessions WHERE id_hash = ?', [hashToken(id)]);
}
