import { statSync } from 'node:fs';
import { join } from 'node:path';
import { readRecordsFrom } from '../store/jsonl.js';
import { LEDGERS_FILE, readLedgerLine, type LedgerView } from './ledger-view.js';

/**
 * An index of ledgers.jsonl read once, ahead of knowing which commits matter:
 * blame reads it while git is still working. Lines are kept unparsed, keyed by
 * the first commit id they name (the last line of a commit wins, as in
 * readLedgers); only the lines of the commits asked for are parsed later.
 */
export class LedgerLines {
  private constructor(
    private readonly raw: Map<string, string>,
    /** The file's size and mtime when read, or undefined when that was not known. */
    private readonly stamp?: string,
  ) {}

  static async read(projectDir: string): Promise<LedgerLines> {
    const stamp = fileStamp(projectDir);
    const raw = new Map<string, string>();
    const index = (line: string) => {
      const commit = FIRST_COMMIT.exec(line)?.[1];
      if (commit !== undefined) raw.set(commit, line);
      // Nothing is parsed here: the lines are only indexed.
      return false;
    };
    for await (const _ of readRecordsFrom(join(projectDir, LEDGERS_FILE), { offset: 0, line: 0 }, { mayMatch: index })) {
      // mayMatch refuses every line, so nothing is yielded.
    }
    return new LedgerLines(raw, stamp);
  }

  /** `previous` again if ledgers.jsonl has not changed since (it only grows), else the file read anew. */
  static async readAgain(projectDir: string, previous: LedgerLines): Promise<LedgerLines> {
    const stamp = fileStamp(projectDir);
    return stamp !== undefined && stamp === previous.stamp ? previous : LedgerLines.read(projectDir);
  }

  /** Every commit the file holds a ledger for. */
  commits(): string[] {
    return [...this.raw.keys()];
  }

  has(commit: string): boolean {
    return this.raw.has(commit);
  }

  /** The ledgers of these commits that the file holds. */
  ledgersOf(commits: Iterable<string>): Map<string, LedgerView> {
    const found = new Map<string, LedgerView>();
    for (const commit of commits) {
      const line = this.raw.get(commit);
      if (line === undefined) continue;
      let ledger: LedgerView | undefined;
      try {
        ledger = readLedgerLine(JSON.parse(line));
      } catch {
        continue;
      }
      if (ledger?.commit === commit) found.set(commit, ledger);
    }
    return found;
  }
}

/** Size and mtime: an append changes both (read before the file, so a later append is never missed). */
function fileStamp(projectDir: string): string | undefined {
  try {
    const { size, mtimeMs } = statSync(join(projectDir, LEDGERS_FILE));
    return `${size}:${mtimeMs}`;
  } catch {
    return undefined;
  }
}

const FIRST_COMMIT = /"(?:commit|revision)"\s*:\s*"([0-9a-f]{40}(?:[0-9a-f]{24})?)"/;
