import crypto from 'node:crypto';
import { TracerError, ExitCode } from './errors.js';

/**
 * A record's content id (wire contract, "Content ids"): lowercase hex SHA-256 of
 * the RFC 8785 (JCS) canonical JSON of the record with its id member removed.
 * Same id = same row, on every machine and on the service.
 */
export function contentId(record: Record<string, unknown>, idMember: string): string {
  return sha256Hex(canonicalJson(record, idMember));
}

/**
 * The content id, and the record as a JSON line built from the very text that
 * was hashed: the id member first, the rest in canonical order. That is the
 * order tracer writes records in (withContentId), so that the service and pull
 * can check them with verifiedLine().
 */
export function identifiedLine(record: Record<string, unknown>, idMember: string): { id: string; line: string } {
  const rest = canonicalJson(record, idMember);
  const id = sha256Hex(rest);
  const member = `${JSON.stringify(idMember)}:"${id}"`;
  return { id, line: rest === '{}' ? `{${member}}` : `{${member},${rest.slice(1)}` };
}

/**
 * The fast way to check a record in the order tracer writes (identifiedLine):
 * its plain JSON text, less the leading id member, is then already canonical
 * JSON, so hashing that text checks the id without sorting anything
 * (BENCHMARKS.md, "Content ids without sorting"). `text` is the record as it
 * arrived, when the caller has it (a row sliced from a page), used instead of
 * serializing it again. Answers that text when it hashes to the id and the
 * record has canonical shape (keys sorted at every level, finite numbers,
 * well-formed strings); undefined means: decide with contentId(), the rule, as
 * for a record in any other order.
 *
 * What a match proves: the bytes kept are exactly the bytes the id was made
 * from, so corruption or a server that rewrites rows is always caught. With
 * `text`, spacing, escapes and number forms are not re-derived: a row whose id
 * was deliberately made over a non-canonical text passes, keeps that id, and is
 * what any service refuses (content_id_mismatch) if it is ever pushed.
 */
export function verifiedLine(record: Record<string, unknown>, idMember: string, text?: string): string | undefined {
  const claimed = record[idMember];
  // No format check of its own: only a SHA-256 in hex can equal the hash below.
  if (typeof claimed !== 'string') return undefined;
  const line = text ?? JSON.stringify(record);
  const prefix = `{${JSON.stringify(idMember)}:"${claimed}"`;
  if (!line.startsWith(prefix)) return undefined;
  const rest = line.length === prefix.length + 1 ? '{}' : `{${line.slice(prefix.length + 1)}`;
  if (sha256Hex(rest) !== claimed) return undefined;
  // A lone surrogate reaches a JSON text only as an escape: without one, no string needs checking.
  return isCanonicalShape(record, idMember, 0, SURROGATE_ESCAPE.test(line)) ? line : undefined;
}

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** Whether JSON.stringify writes `value` exactly as RFC 8785 does: keys in code-unit order, nothing it would refuse. */
function isCanonicalShape(value: unknown, skip: string | undefined, depth: number, checkStrings: boolean): boolean {
  switch (typeof value) {
    case 'string':
      return !checkStrings || (value as WellFormedString).isWellFormed();
    case 'number':
      return Number.isFinite(value);
    case 'boolean':
      return true;
    case 'object':
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (depth > MAX_SHAPE_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1)
      if (!isCanonicalShape(value[index], undefined, depth + 1, checkStrings)) return false;
    return true;
  }
  let previous: string | undefined;
  for (const key of Object.keys(value)) {
    if (key === skip) continue;
    if ((previous !== undefined && previous >= key) || (checkStrings && !(key as WellFormedString).isWellFormed())) return false;
    if (!isCanonicalShape((value as Record<string, unknown>)[key], undefined, depth + 1, checkStrings)) return false;
    previous = key;
  }
  return typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}
/** Deeper rows take the slow path, whose own limits then apply. */
const MAX_SHAPE_DEPTH = 64;

/**
 * RFC 8785 canonical JSON. Refuses values JSON cannot carry (NaN, Infinity,
 * undefined at top level). `omit` leaves out one member of a top-level object
 * (the id member), without copying the record to drop it.
 */
export function canonicalJson(value: unknown, omit?: string): string {
  let text: string | undefined;
  try {
    text = canonical(value, new Set(), omit);
  } catch (error) {
    throw new TracerError('invalid_record', `The record cannot be written as canonical JSON: ${(error as Error).message}.`, {
      exitCode: ExitCode.validation,
      cause: error,
    });
  }
  if (text === undefined) {
    throw new TracerError('invalid_record', 'The record has no JSON form; pass a plain JSON object.', {
      exitCode: ExitCode.validation,
    });
  }
  return text;
}

/**
 * RFC 8785 over JSON data, as the canonicalize package does it (same refusals:
 * NaN, Infinity, lone surrogates, cycles; same toJSON and undefined handling),
 * but checking strings with the native isWellFormed() instead of a loop per
 * character: pull and the service hash every row, and that loop was most of
 * the cost (BENCHMARKS.md, "Canonical JSON").
 * JSON.stringify writes strings and finite numbers exactly as JCS wants them.
 */
function canonical(value: unknown, seen: Set<object>, omit?: string): string | undefined {
  switch (typeof value) {
    case 'string':
      // Most members (ids, hashes, paths, timestamps) need neither escaping nor a surrogate check.
      if (!NEEDS_CARE.test(value)) return `"${value}"`;
      if (!(value as WellFormedString).isWellFormed()) throw new Error('Lone surrogate is not allowed');
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new Error(Number.isNaN(value) ? 'NaN is not allowed' : 'Infinity is not allowed');
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      // undefined, functions and symbols have no JSON form; a bigint makes JSON.stringify throw.
      return JSON.stringify(value);
  }
  if (value === null) return 'null';
  if (seen.has(value)) throw new Error('Circular reference detected');
  seen.add(value);
  let result: string | undefined;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    result = canonical((value as { toJSON(): unknown }).toJSON(), seen);
  } else if (Array.isArray(value)) {
    result = '[';
    for (let index = 0; index < value.length; index += 1) {
      if (index > 0) result += ',';
      result += canonical(value[index], seen) ?? 'null';
    }
    result += ']';
  } else {
    const record = value as Record<string, unknown>;
    result = '{';
    let first = true;
    for (const key of Object.keys(record).sort()) {
      if (key === omit) continue;
      const member = canonical(record[key], seen);
      if (member === undefined) continue;
      result += `${first ? '' : ','}${canonical(key, seen)}:${member}`;
      first = false;
    }
    result += '}';
  }
  seen.delete(value);
  return result;
}

/** Characters JSON escapes, and surrogates (which may be lone). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what JSON escapes
const NEEDS_CARE = /[\u0000-\u001f"\\\ud800-\udfff]/;

/** String.prototype.isWellFormed (Node 20): not yet in the ES2023 typings. */
type WellFormedString = string & { isWellFormed(): boolean };

type OneShot = (algorithm: string, data: string | Uint8Array, encoding: 'hex') => string;
/**
 * crypto.hash (Node 20.12+) skips the Hash object, which counts when every pulled row is hashed (BENCHMARKS.md,
 * "Content ids without sorting"). Looked up on the first hash, not at import: the build loads crypto only
 * then (scripts/lazy-builtins.mjs), and a no-op push hashes nothing. null: this Node has none.
 */
let oneShot: OneShot | null | undefined;

export function sha256Hex(data: string | Uint8Array): string {
  oneShot ??= (crypto as { hash?: OneShot }).hash ?? null;
  return oneShot ? oneShot('sha256', data, 'hex') : crypto.createHash('sha256').update(data).digest('hex');
}

/**
 * Returns the record with its id member set to its content id: the id member
 * first, the other members in canonical order at every level, so that every
 * reader can check it with verifiedLine().
 */
export function withContentId<T extends Record<string, unknown>>(record: T, idMember: string): T {
  return JSON.parse(identifiedLine(record, idMember).line) as T;
}

export const SHA256_HEX = /^[0-9a-f]{64}$/;
