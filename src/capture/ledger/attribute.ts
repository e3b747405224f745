// Decides, line by line, who wrote what a commit added. Pure and ordered, so the
// same commit and the same traces give the same answer on every machine:
// files by path, lines by number, and for each line the most recent trace that
// still holds an unclaimed copy of it (ties broken by trace id).
import { isAttributableLine, lineHash } from '../trace-record.js';
import type { AddedLine, CommitChanges } from './commit-diff.js';
import type { WindowTrace } from './trace-window.js';
import type { CommitClaims } from './attribution-state.js';

export interface AttributedLine extends AddedLine {
  /** The trace the line came from; undefined when a person wrote it. */
  trace?: WindowTrace;
  /** A blank line is nobody's work: it only joins the ranges around it. */
  blank?: true;
}

export interface Attribution {
  /** path → added lines, in line order; lines a merge carried in from another parent are left out. */
  files: Map<string, AttributedLine[]>;
  claims: CommitClaims['claims'];
}

export function attribute(changes: CommitChanges, window: readonly WindowTrace[]): Attribution {
  const preference = [...window].sort((a, b) => time(b) - time(a) || compare(a.id, b.id));
  const files = new Map<string, AttributedLine[]>();
  const claims: CommitClaims['claims'] = {};
  for (const path of [...changes.added.keys()].sort(compare)) {
    const carried = changes.carried.get(path);
    const result: AttributedLine[] = [];
    for (const added of changes.added.get(path)!) {
      if (!isAttributableLine(added.text)) {
        result.push({ ...added, blank: true });
        continue;
      }
      const hash = lineHash(added.text);
      const trace = preference.find((candidate) => (candidate.lines.get(path)?.get(hash) ?? 0) > 0);
      // A merge's line that another parent already had was written on that branch; its own ledgers say by whom.
      if (carried?.has(added.line) && !trace) continue;
      if (trace) {
        const counts = trace.lines.get(path)!;
        counts.set(hash, counts.get(hash)! - 1);
        const perPath = ((claims[trace.id] ??= {})[path] ??= {});
        perPath[hash] = (perPath[hash] ?? 0) + 1;
      }
      result.push(trace ? { ...added, trace } : { ...added });
    }
    if (result.some((line) => !line.blank)) files.set(path, result);
  }
  return { files, claims };
}

function time(trace: WindowTrace): number {
  const millis = Date.parse(trace.ts);
  return Number.isNaN(millis) ? -Infinity : millis;
}

/** Code-unit order: the same everywhere, unlike localeCompare. */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
