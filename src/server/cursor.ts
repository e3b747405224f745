// Paging, for every route that pages. Pull cursors are opaque to clients (wire
// contract "Pull, per family"): today they wrap the ingest sequence number, and the
// version prefix leaves room to change that.
import { MAX_PAGE_SIZE, PAGE_SIZE } from '../protocol/limits.js';
import { ProblemError } from './problem.js';

const PREFIX = 'v1:';

export function encodeCursor(seq: number): string {
  return Buffer.from(`${PREFIX}${seq}`, 'utf8').toString('base64url');
}

/** 0 (the start) when there is no cursor; 400 invalid_cursor for anything this service did not issue. */
export function decodeCursor(cursor: string | undefined): number {
  if (cursor === undefined || cursor === '') return 0;
  const text = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const seq = text.startsWith(PREFIX) && /^\d{1,15}$/.test(text.slice(PREFIX.length)) ? Number(text.slice(PREFIX.length)) : Number.NaN;
  if (!Number.isSafeInteger(seq)) {
    throw new ProblemError(
      400,
      'invalid_cursor',
      'The "after" cursor was not issued by this service; pass back next_cursor unchanged, or omit it to start over.',
    );
  }
  return seq;
}

/** The page size asked for: 500 when absent or empty (as an empty `after` is the start), capped at 1000 without error (spec §8). */
export function pageSize(text: string | undefined): number {
  if (text === undefined || text === '') return PAGE_SIZE;
  if (!/^\d+$/.test(text) || Number(text) < 1)
    throw new ProblemError(400, 'invalid_query', `"limit" must be a whole number of at least 1, not "${text}".`);
  return Math.min(Number(text), MAX_PAGE_SIZE);
}
