import { createHash } from 'node:crypto';
import { TracerError, ExitCode } from './errors.js';

/**
 * A record's content id (wire contract, "Content ids"): lowercase hex SHA-256 of
 * the RFC 8785 (JCS) canonical JSON of the record with its id member removed.
 * Same id = same row, on every machine and on the service.
 */
export function contentId(record: Record<string, unknown>, idMember: string): string {
  const { [idMember]: _ignored, ...rest } = record;
  return sha256Hex(canonicalJson(rest));
}

/** RFC 8785 canonical JSON. Refuses values JSON cannot carry (NaN, Infinity, undefined at top level). */
export function canonicalJson(value: unknown): string {
  let text: string | undefined;
  try {
    text = canonical(value, new Set());
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
 * the cost (profile of a 100k-row pull: 1.3 s of 5.6 s).
 * JSON.stringify writes strings and finite numbers exactly as JCS wants them.
 */
function canonical(value: unknown, seen: Set<object>): string | undefined {
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
const NEEDS_CARE = /[\u0000-\u001f"\\\ud800-\udfff]/;

/** String.prototype.isWellFormed (Node 20): not yet in the ES2023 typings. */
type WellFormedString = string & { isWellFormed(): boolean };

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Returns the record with its id member set to its content id (the id member comes first). */
export function withContentId<T extends Record<string, unknown>>(record: T, idMember: string): T {
  const { [idMember]: _ignored, ...rest } = record;
  return { [idMember]: contentId(rest, idMember), ...rest } as T;
}

export const SHA256_HEX = /^[0-9a-f]{64}$/;
