import type { TraceEvent } from '../data-source.js';
import { isObject, str } from './refreshing-file.js';

/** A trace row as the session's timeline shows it: when, what, and how many lines per file (never the line hashes). */
export function timelineEvent(row: unknown): TraceEvent | undefined {
  if (!isObject(row) || typeof row.ts !== 'string') return undefined;
  const files = (Array.isArray(row.files) ? row.files : []).flatMap((file) => {
    if (!isObject(file) || typeof file.path !== 'string') return [];
    const ranges = Array.isArray(file.ranges) ? file.ranges.filter(isObject) : [];
    const lines = ranges.reduce((sum, range) => {
      const size = Number(range.end_line) - Number(range.start_line) + 1;
      return Number.isFinite(size) && size > 0 ? sum + size : sum;
    }, 0);
    return [{ path: file.path, lines }];
  });
  return {
    id: str(row.id) ?? null,
    ts: row.ts,
    event: str(row.event) ?? 'event',
    tool: str(row.tool) ?? null,
    model: str(row.model) ?? null,
    turn_id: str(row.turn_id) ?? null,
    files,
  };
}
