import { createHash } from 'node:crypto';
import { isAttributableLine, lineHash, type TracedFile, type TracedRange } from '../trace-record.js';
import type { WrittenFragment } from './hook-event.js';

/**
 * Where the agent's text sits in the file as it stands after the write. Ranges
 * cover whole lines: an edit inside a line makes that line the agent's, and the
 * ledger compares whole lines of a commit with `line_hashes`.
 *
 * A fragment that is no longer in the file (a formatter ran, the user typed over
 * it, the file is gone) still counts by its own lines, with no range: attribution
 * needs the hashes, the ranges only say where.
 */
export function tracedFile(path: string, fileText: string | undefined, fragments: readonly WrittenFragment[]): TracedFile | undefined {
  const lines = fileText === undefined ? [] : splitLines(fileText);
  const starts = fileText === undefined ? [] : lineStarts(fileText);
  const spans: Array<[number, number]> = [];
  const unplaced: string[] = [];
  for (const fragment of fragments) {
    if (!splitLines(fragment.text).some(isAttributableLine)) continue;
    const found = fileText === undefined ? [] : occurrences(fileText, starts, fragment);
    if (found.length === 0) unplaced.push(...splitLines(fragment.text));
    for (const [start, end] of found) {
      // Text that starts with the newline ending a line leaves that line's own content alone.
      const first = fileText![start] === '\n' && end - start > 1 ? start + 1 : start;
      spans.push([lineAt(starts, first), lineAt(starts, end - 1)]);
    }
  }
  const ranges: TracedRange[] = merge(spans).map(([first, last]) => ({
    start_line: first + 1,
    end_line: last + 1,
    content_sha256: createHash('sha256')
      .update(lines.slice(first, last + 1).join('\n'), 'utf8')
      .digest('hex'),
  }));
  const written = [...ranges.flatMap((range) => lines.slice(range.start_line - 1, range.end_line)), ...unplaced];
  const line_hashes = written.filter(isAttributableLine).map(lineHash);
  if (line_hashes.length === 0) return undefined;
  return { path, ranges, line_hashes };
}

/** Lines without their terminators ("\n" or "\r\n"); a final newline ends the last line, it does not start one. */
export function splitLines(text: string): string[] {
  const lines = text.split('\n').map((line) => line.replace(/\r$/, ''));
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) starts.push(index + 1);
  return starts;
}

/** 0-based line holding character `offset` (binary search over line starts). */
function lineAt(starts: readonly number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle]! <= offset) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** [start, end) character spans of the fragment: every one, or the first that fits. */
function occurrences(text: string, starts: readonly number[], fragment: WrittenFragment): Array<[number, number]> {
  const needle = fragment.text;
  const found: Array<[number, number]> = [];
  let index = text.indexOf(needle);
  while (index !== -1) {
    const end = index + needle.length;
    if (fragment.wholeLines && !atLineBoundaries(text, starts, index, end)) {
      index = text.indexOf(needle, index + 1);
      continue;
    }
    found.push([index, end]);
    if (!fragment.everyOccurrence) break;
    index = text.indexOf(needle, Math.max(end, index + 1));
  }
  return found;
}

function atLineBoundaries(text: string, starts: readonly number[], start: number, end: number): boolean {
  const startsLine = starts[lineAt(starts, start)] === start;
  const endsLine = end === text.length || text[end] === '\n' || text.startsWith('\r\n', end);
  return startsLine && endsLine;
}

/** Sorts line spans and joins those that overlap. */
function merge(spans: Array<[number, number]>): Array<[number, number]> {
  const sorted = [...spans].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const merged: Array<[number, number]> = [];
  for (const span of sorted) {
    const last = merged[merged.length - 1];
    if (last && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else merged.push([...span]);
  }
  return merged;
}
