// `--since` (spec §4.2): an ISO-8601 date (`2024-05-01`, read as UTC midnight) or
// date-time with a zone (`2024-05-01T12:00:00Z`, `...+02:00`). Returned as UTC ISO.
import { UsageError } from 'clipanion';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

export function parseSince(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  const millis = DATE.test(text) ? Date.parse(`${text}T00:00:00Z`) : DATE_TIME.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(millis)) {
    throw new UsageError(
      `--since takes an ISO-8601 date or date-time with a time zone, e.g. 2024-05-01 or 2024-05-01T12:00:00Z, not "${value}"`,
    );
  }
  return new Date(millis).toISOString();
}
