// A TranscriptCursor as one opaque, URL-safe string (the viewer's `?cursor=`,
// an MCP tool's argument), and back. Only the exact form is accepted and the
// offset must lie inside the transcript, so a cursor of another transcript or
// a made-up one is refused with `bad_cursor` rather than read from.
import { TracerError } from '../core/errors.js';
import type { TranscriptContainer, TranscriptCursor } from '../core/transcript.js';

const CODES: Record<TranscriptContainer, string> = { lines: 'l', array: 'a', member: 'm', object: 'o' };
const CONTAINERS: Record<string, TranscriptContainer> = { l: 'lines', a: 'array', m: 'member', o: 'object' };
const FORM = /^(\d{1,15})\.(\d{1,15})\.(\d{1,9})\.(\d{1,9})\.([lamo])(?:\.m([A-Za-z0-9_-]{1,400}))?(?:\.s([A-Za-z0-9_-]{1,1400}))?$/;
/** A format's carried state larger than this is not kept: the next page may then repeat a little. */
export const CARRY_MAX = 1024;

export function encodeCursor(cursor: TranscriptCursor): string {
  const model = cursor.model === undefined ? '' : `.m${Buffer.from(cursor.model, 'utf8').toString('base64url')}`;
  const carried = cursor.carry === undefined ? undefined : JSON.stringify(cursor.carry);
  const carry = carried === undefined || carried.length > CARRY_MAX ? '' : `.s${Buffer.from(carried, 'utf8').toString('base64url')}`;
  return `${cursor.offset}.${cursor.record}.${cursor.turn}.${cursor.step}.${CODES[cursor.container]}${model}${carry}`;
}

/** The cursor a string names, checked against the transcript's size. */
export function decodeCursor(text: string, size: number): TranscriptCursor {
  const match = FORM.exec(text);
  const offset = match ? Number(match[1]) : NaN;
  if (!match || offset > size) throw badCursor();
  const cursor: TranscriptCursor = {
    offset,
    record: Number(match[2]),
    turn: Number(match[3]),
    step: Number(match[4]),
    container: CONTAINERS[match[5]!]!,
  };
  if (match[6] !== undefined) {
    const model = Buffer.from(match[6], 'base64url').toString('utf8');
    if (!/^[\x20-\x7e]{1,250}$/.test(model)) throw badCursor();
    cursor.model = model;
  }
  if (match[7] !== undefined) {
    try {
      cursor.carry = JSON.parse(Buffer.from(match[7], 'base64url').toString('utf8')) as unknown;
    } catch {
      throw badCursor();
    }
  }
  return cursor;
}

function badCursor(): TracerError {
  return new TracerError('bad_cursor', 'This page cursor does not belong to the transcript; reload the session page.');
}
