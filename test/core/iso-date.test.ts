// ISO-8601 dates as tracer reads them (src/core/iso-date.ts): the shapes, and the calendar.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isCalendarDate, isoMillis } from '../../src/core/iso-date.js';
import { memberProblem } from '../../src/core/member-checks.js';
import { parseSince } from '../../src/cli/since.js';

test('dates and date-times with a zone are read; a day the calendar lacks is not a date', () => {
  assert.is(isoMillis('2024-05-01'), Date.UTC(2024, 4, 1));
  assert.is(isoMillis('2024-05-01', { endOfDay: true }), Date.UTC(2024, 4, 2) - 1);
  assert.is(isoMillis('2024-05-01T12:00Z'), Date.UTC(2024, 4, 1, 12));
  assert.is(isoMillis('2024-05-01T12:00:00.5+02:00'), Date.UTC(2024, 4, 1, 10, 0, 0, 500));
  assert.is(isoMillis('2024-02-29'), Date.UTC(2024, 1, 29), 'a leap day');
  for (const bad of [
    '2023-02-29',
    '2026-11-31',
    '2026-02-30T00:00:00Z',
    '2026-13-01',
    '2026-00-10',
    '2026-01-00',
    '2026-04-31T10:00+01:00',
  ])
    assert.ok(Number.isNaN(isoMillis(bad)), bad);
  for (const bad of ['2024-05-01T12:00:00', 'last tuesday', '', '2024-5-1', '2024-05-01T25:00:00Z'])
    assert.ok(Number.isNaN(isoMillis(bad)), bad);
  assert.ok(isCalendarDate('2000-02-29T00:00:00Z'));
  assert.not.ok(isCalendarDate('1900-02-29T00:00:00Z'), 'not a leap year');
});

test('every reader uses it: --since, an item ts on the service', () => {
  assert.throws(() => parseSince('2026-11-31'), /--since takes an ISO-8601 date/);
  assert.is(parseSince('2026-11-30'), '2026-11-30T00:00:00.000Z');
  assert.ok(memberProblem('timestamp', '2024-02-30T12:00:00Z'));
  assert.is(memberProblem('timestamp', '2024-02-29T12:00:00Z'), undefined);
});

test.run();
