// The lines of a text, found once: where each starts, and whether it is a JSON
// line (asked once each). The plain-text windows (engine.ts) step over them a
// line at a time; each step's own search for a line's start and a slice for
// its JSON test made a text whose every line hits a trigger (`token: abc`, 8 MB)
// take 13 s.
import { looksLikeJson } from './json-strings.js';

export class TextLines {
  readonly starts: number[] = [0];
  /** Per line: 0 not asked yet, 1 JSON, 2 not. */
  readonly #json: Uint8Array;

  constructor(readonly text: string) {
    for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) this.starts.push(index + 1);
    this.#json = new Uint8Array(this.starts.length);
  }

  get count(): number {
    return this.starts.length;
  }

  /** The line that holds `offset`. */
  lineOf(offset: number): number {
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (this.starts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  /** Where the line ends: its line break, or the text's end. */
  end(line: number): number {
    return line + 1 < this.starts.length ? this.starts[line + 1]! - 1 : this.text.length;
  }

  isJson(line: number): boolean {
    if (this.#json[line] === 0) this.#json[line] = looksLikeJson(this.text.slice(this.starts[line]!, this.end(line))) ? 1 : 2;
    return this.#json[line] === 1;
  }
}
