// Tombstones (issue 31): a forgotten row leaves behind a record of what was
// forgotten, by whom and when, never its content. They travel like data
// (GET /api/v1/tombstones): another machine's pull removes its copies, and a
// client that knows one tells a service restored from an older backup again
// (POST /api/v1/tombstones). A tombstone is signed with a key kept in the
// service's own database, so a client can hand back only what this service
// itself forgot, never forge a deletion.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { canonicalJson, contentId, SHA256_HEX } from '../../core/content-id.js';
import type { FamilyDefinition } from '../../kernel/families.js';
import type { UnsignedTombstone, WireTombstone } from '../../protocol/privacy.js';
import { itemKey } from '../batch.js';
import type { SqlTransaction, TraceStorage } from '../storage/types.js';

export type RemovalReason = WireTombstone['reason'];

/** The wire form (docs/protocol.md, "Tombstones"): the protocol's, the one both sides read. */
export type Tombstone = WireTombstone;

/** The members of a row that identify it, as a tombstone carries them. */
export function identityOf(record: Record<string, unknown>, family: FamilyDefinition): Record<string, unknown> {
  const members = family.idMember !== null ? [family.idMember] : [...(family.identity ?? [])];
  return Object.fromEntries(members.map((member) => [member, record[member]]));
}

const KEY_NAME = 'tombstones';
const keys = new WeakMap<TraceStorage, Promise<Buffer>>();

/** The service's signing key: made once, kept in its database (a restored backup keeps it too). */
export function signingKey(storage: TraceStorage): Promise<Buffer> {
  let key = keys.get(storage);
  if (!key) {
    key = (async () => {
      await storage.execute('INSERT INTO service_keys (name, value) VALUES (?, ?) ON CONFLICT DO NOTHING', [
        KEY_NAME,
        randomBytes(32).toString('hex'),
      ]);
      const [row] = await storage.query<{ value: string }>('SELECT value FROM service_keys WHERE name = ?', [KEY_NAME]);
      return Buffer.from(row!.value, 'hex');
    })();
    key.catch(() => keys.delete(storage));
    keys.set(storage, key);
  }
  return key;
}

function signatureOf(key: Buffer, unsigned: UnsignedTombstone): string {
  return createHmac('sha256', key).update(canonicalJson(unsigned), 'utf8').digest('hex');
}

export function makeTombstone(key: Buffer, unsigned: UnsignedTombstone): Tombstone {
  const signed = { ...unsigned, signature: signatureOf(key, unsigned) };
  return { id: contentId(signed, 'id'), ...signed };
}

/** Why an incoming tombstone is refused, or undefined when this service signed it and it is whole. */
export function tombstoneProblem(key: Buffer, value: unknown, families: readonly FamilyDefinition[]): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'must be a JSON object';
  const stone = value as Partial<Tombstone>;
  const family = families.find((candidate) => candidate.name === stone.family);
  if (!family) return `names no family of this service (${String(stone.family).slice(0, 40)})`;
  if (typeof stone.identity !== 'object' || stone.identity === null) return 'has no identity';
  if (typeof stone.signature !== 'string' || typeof stone.id !== 'string') return 'has no signature or id';
  const { id, signature, ...unsigned } = stone as Tombstone;
  const expected = Buffer.from(signatureOf(key, unsigned), 'hex');
  const given = Buffer.from(signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'is not signed by this service';
  if (id !== contentId({ ...unsigned, signature }, 'id')) return 'has an id that is not its content id';
  if (stone.blob_sha256 !== undefined && !SHA256_HEX.test(String(stone.blob_sha256))) return 'names a blob that is not a SHA-256';
  return undefined;
}

/** The service's key of the row a tombstone names (batch.ts itemKey, from the identity members). */
export function tombstoneItemKey(stone: Tombstone, family: FamilyDefinition): string {
  return itemKey(stone.identity, family);
}

/** The first 128 bits of each id XORed together: order-free, so the client can compare its set in one figure. */
export function xorDigest(digest: string, id: string): string {
  const value = BigInt(`0x${digest}`) ^ BigInt(`0x${id.slice(0, 32)}`);
  return value.toString(16).padStart(32, '0');
}
export const EMPTY_DIGEST = '0'.repeat(32);

/**
 * Records tombstones in the caller's transaction; returns those that were new.
 * The project's head (count and digest) changes with them, under a row lock.
 */
export async function insertTombstones(
  tx: SqlTransaction,
  projectId: number,
  stones: readonly Tombstone[],
  families: readonly FamilyDefinition[],
) {
  const added: Tombstone[] = [];
  // A hundred rows per statement (nine values each): one round trip instead of a hundred while the project's ingest waits.
  for (let start = 0; start < stones.length; start += 100) {
    const slice = stones.slice(start, start + 100);
    const params = slice.flatMap((stone) => {
      const family = families.find((candidate) => candidate.name === stone.family)!;
      return [
        projectId,
        stone.family,
        tombstoneItemKey(stone, family),
        stone.id,
        JSON.stringify(stone),
        stone.conversation_id ?? null,
        stone.blob_sha256 ?? null,
        stone.reason,
        stone.ts,
      ];
    });
    const inserted = await tx.query<{ id: string }>(
      `INSERT INTO tombstones (project_id, family, item_key, id, body, conversation_id, blob_sha, reason, ts)
       VALUES ${slice.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')} ON CONFLICT DO NOTHING RETURNING id`,
      params,
    );
    const ids = new Set(inserted.map((row) => row.id));
    added.push(...slice.filter((stone) => ids.has(stone.id)));
  }
  if (added.length === 0) return added;
  await tx.execute('INSERT INTO tombstone_heads (project_id, count, digest) VALUES (?, 0, ?) ON CONFLICT DO NOTHING', [
    projectId,
    EMPTY_DIGEST,
  ]);
  const [head] = await tx.query<{ count: number; digest: string }>(
    `SELECT count, digest FROM tombstone_heads WHERE project_id = ?${tx.forUpdate}`,
    [projectId],
  );
  const digest = added.reduce((value, stone) => xorDigest(value, stone.id), head!.digest);
  await tx.execute('UPDATE tombstone_heads SET count = ?, digest = ? WHERE project_id = ?', [
    Number(head!.count) + added.length,
    digest,
    projectId,
  ]);
  return added;
}

/** Keys of `keys` (of one family) that a tombstone of this project names. */
export async function forgottenKeys(
  storage: TraceStorage,
  projectId: number,
  family: string,
  keys: readonly string[],
): Promise<Set<string>> {
  const found = new Set<string>();
  for (let start = 0; start < keys.length; start += 500) {
    const slice = keys.slice(start, start + 500);
    const rows = await storage.query<{ item_key: string }>(
      `SELECT item_key FROM tombstones WHERE project_id = ? AND family = ? AND item_key IN (${slice.map(() => '?').join(', ')})`,
      [projectId, family, ...slice],
    );
    for (const row of rows) found.add(row.item_key);
  }
  return found;
}

/** Whether these bytes were forgotten in this project and no row of it names them again. */
export async function blobForgotten(storage: TraceStorage, projectId: number, sha: string): Promise<boolean> {
  const [row] = await storage.query<{ n: number }>(
    `SELECT COUNT(*) AS n FROM tombstones t WHERE t.project_id = ? AND t.blob_sha = ?
     AND NOT EXISTS (SELECT 1 FROM items i WHERE i.project_id = t.project_id AND i.blob_sha = t.blob_sha)`,
    [projectId, sha],
  );
  return Number(row?.n ?? 0) > 0;
}
