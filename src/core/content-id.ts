import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
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
    text = canonicalize(value);
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

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Returns the record with its id member set to its content id (the id member comes first). */
export function withContentId<T extends Record<string, unknown>>(record: T, idMember: string): T {
  const { [idMember]: _ignored, ...rest } = record;
  return { [idMember]: contentId(rest, idMember), ...rest } as T;
}

export const SHA256_HEX = /^[0-9a-f]{64}$/;
