// The audit log's hash chain (issue 31; docs/protocol.md, "Audit log"): entry n
// of an org's log is the JSON object `{n, ts, action, actor, org_slug,
// project_slug, target, prev_hash}`, its hash the SHA-256 of that object's
// RFC 8785 canonical JSON, and `prev_hash` the hash of entry n-1 (64 zeros for
// entry 1). The service keeps the last n and hash as the head. The service
// appends with these; `tracer audit verify` checks with the same.
import { canonicalJson, sha256Hex } from './content-id.js';

export const GENESIS_HASH = '0'.repeat(64);

export function auditHash(body: unknown): string {
  return sha256Hex(canonicalJson(body));
}

export interface ChainEntry {
  n: number;
  hash: string;
  entry: unknown;
}

export interface ChainBreak {
  /** The first entry that does not verify. */
  n: number;
  reason: string;
}

/** Checks a whole chain, entries in order from 1, against its head: undefined when every entry verifies. */
export function verifyChain(entries: readonly ChainEntry[], head: { n: number; hash: string }): ChainBreak | undefined {
  let previous = GENESIS_HASH;
  let expected = 1;
  for (const stored of entries) {
    if (stored.n !== expected) return { n: expected, reason: `is missing (the log goes from entry ${expected - 1} to entry ${stored.n})` };
    const body = stored.entry as { n?: unknown; prev_hash?: unknown } | null;
    if (typeof body !== 'object' || body === null || body.n !== stored.n)
      return { n: stored.n, reason: 'is not an entry of this log (its body does not say its number)' };
    if (auditHash(body) !== stored.hash) return { n: stored.n, reason: 'was changed: its hash does not match its content' };
    if (body.prev_hash !== previous)
      return {
        n: stored.n,
        reason: `does not follow entry ${stored.n - 1}: its prev_hash is not that entry's hash (one of them was changed or replaced)`,
      };
    previous = stored.hash;
    expected += 1;
  }
  const last = expected - 1;
  if (head.n > last)
    return { n: last + 1, reason: `is missing: the head says the log has ${head.n} entries, but it ends at entry ${last}` };
  if (head.n < last) return { n: head.n + 1, reason: `was added after the head (entry ${head.n}) was last written` };
  if (head.hash !== previous) return { n: last, reason: "was changed: the head's hash is not its hash" };
  return undefined;
}
