// The dates tracer reads from people and clients (`--since`, `--until`,
// `--before`, a forget's `before`, an item's `ts`): ISO-8601, one place for the
// shapes and the calendar. `Date.parse` takes 2026-02-30 as March 2nd; a date
// the calendar lacks is no date, so `forget --before 2026-11-31` is refused
// rather than run up to December 1st.

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/i;

/**
 * Milliseconds since the epoch of an ISO-8601 date (`2024-05-01`: UTC midnight, or the day's last
 * millisecond with `endOfDay`) or date-time with a zone (`2024-05-01T12:00:00Z`, `...+02:00`, seconds
 * optional); NaN for anything else, a day the calendar lacks included.
 */
export function isoMillis(text: string, options: { endOfDay?: boolean } = {}): number {
  const date = DATE.exec(text);
  if (date) return calendarDay(date) ? Date.parse(`${text}T${options.endOfDay ? '23:59:59.999' : '00:00:00'}Z`) : NaN;
  const dateTime = DATE_TIME.exec(text);
  return dateTime && calendarDay(dateTime) ? Date.parse(text) : NaN;
}

/** Whether the text starts with a day the calendar has (`2024-02-29` yes, `2023-02-29` no). */
export function isCalendarDate(text: string): boolean {
  const day = /^(\d{4})-(\d{2})-(\d{2})/.exec(text);
  return day !== null && calendarDay(day);
}

function calendarDay([, year, month, day]: RegExpExecArray): boolean {
  const [y, m, d] = [Number(year), Number(month), Number(day)];
  if (m < 1 || m > 12 || d < 1) return false;
  // Day 0 of the next month is this month's last day (setUTCFullYear: years below 100 are not 19xx).
  const last = new Date(0);
  last.setUTCFullYear(y, m, 0);
  return d <= last.getUTCDate();
}
