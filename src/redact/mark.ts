/**
 * The member a record carries when it was redacted before it was stored (by
 * capture, by `tracer redact --store`, or on its way out): a push sends such a
 * record as it is, and scans only the others (data captured before redaction).
 */
export const REDACTED_MEMBER = 'redacted';

export function isMarkedRedacted(record: Record<string, unknown>): boolean {
  return record[REDACTED_MEMBER] === true;
}
