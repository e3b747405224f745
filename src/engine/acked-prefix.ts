// How far an append-only store is wholly on the remote: the end of the longest
// run of rows, from where the push began reading, each of which the remote has
// acknowledged (or the manifest already listed). A row merely queued, refused,
// held back or unreadable ends the run for this push; the scan mark saved in
// sync-state.json is this end and never a row further (issue 19).

/** Where a line of the store ends. */
export interface LinePosition {
  end: number;
  line: number;
}

/** The end of the prefix: a line end, and how many records lie before it. */
export interface PrefixEnd extends LinePosition {
  records: number;
}

interface Row extends PrefixEnd {
  acked: boolean;
}

/**
 * A row, its members named one by one: `{ ...position, records, acked }` made
 * each row a slow object (V8 copies the spread, then adds two members), and
 * cost a 54,000-row push 0.15 s of CPU where this costs 6 ms.
 */
function rowAt(position: LinePosition, records: number, acked: boolean): Row {
  return { end: position.end, line: position.line, records, acked };
}

/** Rows dropped from the front of the queue in one go once this many are behind the head. */
const COMPACT_AFTER = 1024;

export class AckedPrefix {
  #reached: PrefixEnd;
  #moved = false;
  #records: number;
  /** Rows read since the first one not yet acknowledged, in the store's order. */
  #rows: Row[] = [];
  #head = 0;
  /** A row that will not be acknowledged this run has been read: rows after it cannot extend the prefix. */
  #ended = false;

  constructor(from?: PrefixEnd) {
    this.#reached = { end: from?.end ?? 0, line: from?.line ?? 0, records: from?.records ?? 0 };
    this.#records = this.#reached.records;
  }

  /** A row the manifest already lists. */
  synced(position: LinePosition): void {
    if (this.#ended) return;
    const row = rowAt(position, ++this.#records, true);
    if (this.#head === this.#rows.length) this.#reach(row);
    else this.#rows.push(row);
  }

  /** A row on its way: the prefix may pass it once the returned acknowledgement is called. */
  pending(position: LinePosition): () => void {
    if (this.#ended) return () => undefined;
    const row = rowAt(position, ++this.#records, false);
    this.#rows.push(row);
    return () => {
      row.acked = true;
      this.#advance();
    };
  }

  /** A row that stays unsynced this run (held back, invalid, unreadable, a dry run): the prefix ends before it. */
  ended(): void {
    this.#ended = true;
  }

  /** The prefix's end, when it moved past where reading began. */
  reached(): PrefixEnd | undefined {
    return this.#moved ? { ...this.#reached } : undefined;
  }

  #advance(): void {
    while (this.#head < this.#rows.length && this.#rows[this.#head]!.acked) this.#reach(this.#rows[this.#head++]!);
    if (this.#head >= COMPACT_AFTER && this.#head * 2 >= this.#rows.length) {
      this.#rows = this.#rows.slice(this.#head);
      this.#head = 0;
    }
  }

  #reach({ end, line, records }: PrefixEnd): void {
    this.#reached = { end, line, records };
    this.#moved = true;
  }
}
