// Recovery by content hash, for a merged pull request whose branch commits are
// gone (the branch deleted, no request ref on the service, never fetched here)
// while their ledgers are here (pulled from the service). The ledgers' ranges
// carry Agent Trace `content_hash` (docs/attribution.md): an agent's range is
// re-attached where the commit added exactly those lines, under strict rules:
// - the range holds at least MIN_LINES lines that are not trivial (`}`, `pass`,
//   blank...), so a lone brace never matches;
// - the lines are in the same file, or the file it was renamed from, and were
//   added by the commit (never a line that was already there);
// - the match is unique: one place in the file, and every ledger that names
//   that hash agrees on the author.
// Recovered lines are marked (`metadata["dev.tracer"].recovered`) so blame says
// so; the commit's other lines are `unknown`, not a person's: nobody can say.
import type { AddedLines } from '../../capture/ledger/commit-diff.js';
import { contentHash, type LineAuthor, type RecordLine } from '../../capture/ledger/ledger-record.js';
import { isAttributableLine } from '../../capture/trace-record.js';
import type { LedgerView } from '../ledger-view.js';
import { authorOf, UNKNOWN_AUTHOR } from './lines.js';

export const MIN_LINES = 3;

/** Lines that say nothing of who wrote them: they never make a match alone. */
const TRIVIAL = /^(?:[\s{}()[\];,.:]*|pass|end|else:?|break;?|continue;?|return;?|fi|done|esac|try:|finally:|\*\/|\/\*+|#|\/\/)$/;

export function isTrivialLine(text: string): boolean {
  return TRIVIAL.test(text.trim());
}

export interface Recovered {
  files: Map<string, RecordLine[]>;
  from: Set<string>;
  /** path → [start, end] of each recovered range. */
  ranges: Record<string, Array<[number, number]>>;
}

interface Candidate {
  commit: string;
  hash: string;
  length: number;
  author: LineAuthor;
  /** The path the source ledger names: the file's, or the one it was renamed from. */
  path: string;
}

/**
 * `files`: the commit's whole text of each path it added lines to;
 * `renamedFrom`: new path → old path for the files the commit renamed.
 */
export function recoverByContent(
  added: AddedLines,
  files: ReadonlyMap<string, readonly string[]>,
  renamedFrom: ReadonlyMap<string, string>,
  sources: readonly LedgerView[],
): Recovered | undefined {
  const result: Recovered = { files: new Map(), from: new Set(), ranges: {} };
  for (const [path, lines] of added) {
    const text = files.get(path);
    if (!text) continue;
    const addedLines = new Set(lines.map((line) => line.line));
    const names = new Set([path, renamedFrom.get(path) ?? path]);
    const candidates: Candidate[] = [];
    for (const source of sources) {
      for (const name of names) {
        for (const range of source.files.get(name) ?? []) {
          const author = authorOf(range.conversation);
          const length = range.end - range.start + 1;
          if (!author || author === UNKNOWN_AUTHOR || range.hash === null || length < MIN_LINES) continue;
          candidates.push({ commit: source.commit, hash: range.hash, length, author, path: name });
        }
      }
    }
    // hash → where it is in the file (1-based starts of the windows made only of added lines).
    const places = new Map<string, number[]>();
    for (const length of new Set(candidates.map((candidate) => candidate.length))) {
      for (let start = 1; start + length - 1 <= text.length; start += 1) {
        let allAdded = true;
        for (let line = start; line < start + length && allAdded; line += 1) allAdded = addedLines.has(line);
        if (!allAdded) continue;
        const window = text.slice(start - 1, start - 1 + length);
        if (window.filter((line) => isAttributableLine(line) && !isTrivialLine(line)).length < MIN_LINES) continue;
        const hash = contentHash(window);
        places.set(`${length}:${hash}`, [...(places.get(`${length}:${hash}`) ?? []), start]);
      }
    }
    const byHash = new Map<string, Candidate[]>();
    for (const candidate of candidates) {
      const key = `${candidate.length}:${candidate.hash}`;
      if (places.has(key)) byHash.set(key, [...(byHash.get(key) ?? []), candidate]);
    }
    const authorOfLine = new Map<number, { author: LineAuthor; path: string }>();
    const ranges: Array<[number, number]> = [];
    for (const [key, found] of [...byHash].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const starts = places.get(key)!;
      const authors = new Set(found.map((candidate) => candidate.author.key));
      // Two places, or two ledgers disagreeing on the author: nothing is re-attached.
      if (starts.length !== 1 || authors.size !== 1) continue;
      const start = starts[0]!;
      const length = found[0]!.length;
      if ([...Array(length).keys()].some((offset) => authorOfLine.has(start + offset))) continue;
      for (let offset = 0; offset < length; offset += 1) authorOfLine.set(start + offset, found[0]!);
      for (const candidate of found) result.from.add(candidate.commit);
      ranges.push([start, start + length - 1]);
    }
    result.files.set(
      path,
      lines.map((line) => {
        if (!isAttributableLine(line.text)) return { ...line, blank: true };
        const source = authorOfLine.get(line.line);
        if (!source) return { ...line, author: UNKNOWN_AUTHOR };
        return { ...line, author: source.author, ...(source.path === path ? {} : { sourcePath: source.path }) };
      }),
    );
    if (ranges.length > 0) result.ranges[path] = ranges.sort((a, b) => a[0] - b[0]);
  }
  return result.from.size === 0 ? undefined : result;
}
