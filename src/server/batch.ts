import { contentId, sha256Hex, verifiedLine } from '../core/content-id.js';
import { memberProblem, timestampMillis } from '../core/member-checks.js';
import type { FamilyDefinition } from '../kernel/families.js';
import { ITEMS_PER_REQUEST } from '../protocol/limits.js';
import { ProblemError, type ValidationError } from './problem.js';
import type { StoredItem } from './storage/types.js';

/**
 * Deepest nesting an item may have. Canonical JSON (the content id) is computed
 * recursively, so a hostile item nested thousands deep would exhaust the stack and
 * answer 500; no real trace comes anywhere near this.
 */
export const MAX_ITEM_DEPTH = 256;

/** One upload, checked in full before anything is written: one bad item rejects the batch. */
export interface PreparedBatch {
  items: StoredItem[];
  /** Inline bytes (blob families) to keep in the project's blob store, by SHA-256. */
  inlineBlobs: Map<string, Buffer>;
  /** Pointer rows: the blob each needs, by item index. */
  pointers: Array<{ index: number; sha: string; size: number }>;
}

/**
 * Checks an upload body against the family definition (data only: required
 * members, member kinds, content id, blob descriptor) and turns it into rows.
 */
export function prepareBatch(body: unknown, family: FamilyDefinition): PreparedBatch {
  if (!isPlainObject(body) || !Array.isArray(body.items)) {
    throw new ProblemError(422, 'invalid_body', 'The body must be a JSON object {"items": [...]}.');
  }
  const items: unknown[] = body.items;
  if (items.length > ITEMS_PER_REQUEST) {
    throw new ProblemError(
      413,
      'too_many_items',
      `The request carries ${items.length} items; send at most ${ITEMS_PER_REQUEST} per request.`,
    );
  }
  const invalid: ValidationError[] = [];
  const mismatched: ValidationError[] = [];
  const batch: PreparedBatch = { items: [], inlineBlobs: new Map(), pointers: [] };
  items.forEach((item, index) => {
    const problems = itemProblems(item, index, family);
    if (problems.length) return invalid.push(...problems);
    const record = item as Record<string, unknown>;
    const unencodable = jsonValueProblem(record);
    if (unencodable) return invalid.push({ index, field: unencodable.field, message: unencodable.message });
    const idMember = family.idMember;
    // Records tracer wrote are checked the fast way, and their JSON line is then already at hand.
    const line = idMember === null ? undefined : verifiedLine(record, idMember);
    const id = idMember === null || line !== undefined ? undefined : canonicalId(record, idMember);
    if (id instanceof Error)
      return invalid.push({
        index,
        field: idMember!,
        message: `cannot be checked: the item has no RFC 8785 canonical form (${id.message})`,
      });
    if (id !== undefined && id !== record[idMember!]) {
      return mismatched.push({
        index,
        field: idMember!,
        message: `is not the content id of the record (SHA-256 of its RFC 8785 canonical JSON without "${family.idMember}")`,
      });
    }
    const stored = { ...record };
    if (family.blob) {
      const { shaMember, sizeMember, inlineMember } = family.blob;
      const sha = record[shaMember] as string;
      const size = record[sizeMember] as number;
      if (record[inlineMember] === undefined || record[inlineMember] === null) {
        batch.pointers.push({ index, sha, size });
        delete stored[inlineMember];
      } else {
        const bytes = Buffer.from(record[inlineMember] as string, 'base64');
        if (bytes.length !== size)
          return invalid.push({
            index,
            field: inlineMember,
            message: `decodes to ${bytes.length} bytes, not the ${size} that "${sizeMember}" says`,
          });
        if (sha256Hex(bytes) !== sha)
          return invalid.push({ index, field: inlineMember, message: `does not hash to "${shaMember}" ${sha}` });
        batch.inlineBlobs.set(sha, bytes);
        // The bytes live in the blob store once; pull puts them back inline when they are small.
        delete stored[inlineMember];
      }
    }
    const body = line !== undefined && !family.blob ? line : JSON.stringify(stored);
    const conversations = family.privacy?.conversations(record) ?? [];
    batch.items.push({
      key: itemKey(record, family),
      tsMillis: timestampMillis(record.ts as string),
      body,
      conversationId: conversations.length === 1 ? conversations[0] : undefined,
      blobSha: family.blob ? (record[family.blob.shaMember] as string) : undefined,
    });
  });
  if (invalid.length)
    throw new ProblemError(
      422,
      'invalid_item',
      `${countItems(invalid)} of ${items.length} items are invalid; nothing was stored. Fix them and send the batch again.`,
      invalid,
    );
  if (mismatched.length) {
    throw new ProblemError(
      422,
      'content_id_mismatch',
      `${countItems(mismatched)} of ${items.length} items carry a wrong content id; nothing was stored. Recompute the ids and send the batch again.`,
      mismatched,
    );
  }
  return batch;
}

/** The content id, or the reason canonical JSON refuses the item (RFC 8785 has no form for a lone surrogate). */
function canonicalId(record: Record<string, unknown>, idMember: string): string | Error {
  try {
    return contentId(record, idMember);
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

/** A row's identity within its family: its content id, or its identity members. */
export function itemKey(record: Record<string, unknown>, family: FamilyDefinition): string {
  if (family.idMember !== null) return record[family.idMember] as string;
  return JSON.stringify((family.identity ?? []).map((member) => record[member]));
}

function itemProblems(item: unknown, index: number, family: FamilyDefinition): ValidationError[] {
  if (!isPlainObject(item)) return [{ index, field: '', message: 'must be a JSON object' }];
  const problems: ValidationError[] = [];
  // Every family is pulled and filtered by `ts`, so the service needs it whatever the family says.
  const required = new Set([...family.required, ...(family.identity ?? []), ...(family.idMember ? [family.idMember] : []), 'ts']);
  for (const member of required) {
    if (item[member] === undefined || item[member] === null) problems.push({ index, field: member, message: 'is required' });
  }
  const kinds = { ts: 'timestamp' as const, ...family.members };
  for (const [member, kind] of Object.entries(kinds)) {
    // Absent optional members are fine; absent required ones are reported above.
    if (item[member] === undefined || item[member] === null) continue;
    const problem = memberProblem(kind, item[member]);
    if (problem) problems.push({ index, field: member, message: problem });
  }
  if (family.idMember !== null && typeof item[family.idMember] !== 'string' && item[family.idMember] != null) {
    problems.push({ index, field: family.idMember, message: 'must be a string' });
  }
  return problems;
}

/**
 * What canonical JSON cannot carry: nesting deeper than MAX_ITEM_DEPTH, or a number
 * JSON.parse made infinite (1e400). Walked without recursion, so the check itself
 * cannot exhaust the stack. `field` is the top-level member holding the problem.
 */
export function jsonValueProblem(record: Record<string, unknown>): { field: string; message: string } | undefined {
  const pending: Array<{ value: unknown; depth: number; field: string }> = Object.entries(record).map(([field, value]) => ({
    value,
    depth: 1,
    field,
  }));
  while (pending.length) {
    const { value, depth, field } = pending.pop()!;
    if (typeof value === 'number' && !Number.isFinite(value))
      return { field, message: 'holds a number too large for JSON (it parses as infinity)' };
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_ITEM_DEPTH) return { field, message: `nests deeper than ${MAX_ITEM_DEPTH} levels` };
    for (const child of Object.values(value)) pending.push({ value: child, depth: depth + 1, field });
  }
  return undefined;
}

function countItems(errors: readonly ValidationError[]): number {
  return new Set(errors.map((error) => error.index)).size;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
