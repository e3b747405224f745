// `--since` (spec §4.2): an ISO-8601 date (`2024-05-01`, read as UTC midnight) or
// date-time with a zone (`2024-05-01T12:00:00Z`, `...+02:00`). Returned as UTC ISO.
import { UsageError } from 'clipanion';
import { isoMillis } from '../core/iso-date.js';

export function parseSince(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  const millis = isoMillis(text);
  if (Number.isNaN(millis)) {
    throw new UsageError(
      `--since takes an ISO-8601 date or date-time with a time zone, e.g. 2024-05-01 or 2024-05-01T12:00:00Z, not "${value}"`,
    );
  }
  return new Date(millis).toISOString();
}
