// The member shapes a family definition may demand (FamilyDefinition.members).
// One place, so the service refuses and the client can pre-check with the same rules.
import { isCalendarDate } from './iso-date.js';

/** The shapes a family can demand of a member; checked below. */
export type MemberKind = 'string' | 'timestamp' | 'commit' | 'sha256' | 'byte-size' | 'base64' | 'string-array';

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const COMMIT = /^([0-9a-f]{40}|[0-9a-f]{64})$/;
const SHA256 = /^[0-9a-f]{64}$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Why `value` is not a `kind`, or undefined when it is. */
export function memberProblem(kind: MemberKind, value: unknown): string | undefined {
  switch (kind) {
    case 'string':
      return typeof value === 'string' && value !== '' ? undefined : 'must be a non-empty string';
    case 'timestamp':
      return typeof value === 'string' && ISO_TIMESTAMP.test(value) && isCalendarDate(value) && !Number.isNaN(Date.parse(value))
        ? undefined
        : 'must be an ISO-8601 date-time with a time zone, e.g. 2024-05-01T12:00:00.000Z';
    case 'commit':
      return typeof value === 'string' && COMMIT.test(value) ? undefined : 'must be a commit id: 40 or 64 lowercase hex characters';
    case 'sha256':
      return typeof value === 'string' && SHA256.test(value) ? undefined : 'must be a SHA-256: 64 lowercase hex characters';
    case 'byte-size':
      return Number.isSafeInteger(value) && (value as number) >= 0 ? undefined : 'must be a non-negative integer byte count';
    case 'base64':
      return typeof value === 'string' && value.length % 4 === 0 && BASE64.test(value) ? undefined : 'must be standard padded base64';
    case 'string-array':
      return Array.isArray(value) && value.every((entry) => typeof entry === 'string') ? undefined : 'must be an array of strings';
  }
}

/** Milliseconds since the epoch of a `timestamp` member, for `since` filters. */
export function timestampMillis(value: string): number {
  return Date.parse(value);
}
