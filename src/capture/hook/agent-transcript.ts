// Reading an agent's JSONL transcript from its end, for what a stop hook wants:
// the last thing the assistant said. Each adapter says which lines are its
// assistant's and where their text is; this reads backwards, never past a cap.
import { linesFromEnd } from './tail-lines.js';
import { parseWellFormedJson } from './well-formed.js';

/** Far enough back for the longest turn. */
export const SUMMARY_CAP_BYTES = 8 * 1024 * 1024;

export type JsonLine = Record<string, unknown>;

/** The first text `pick` finds in the transcript's lines, last line first; undefined when none or unreadable. */
export async function lastTextInJsonl(path: string, pick: (entry: JsonLine) => string | undefined): Promise<string | undefined> {
  try {
    for await (const line of linesFromEnd(path, SUMMARY_CAP_BYTES)) {
      const entry = parseJsonLine(line);
      const text = entry ? pick(entry) : undefined;
      if (text !== undefined && text.trim() !== '') return text;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** The texts of a message content: a string, or `[{type: "text", text}]` blocks (also `{text}` parts without a type). */
export function textBlocks(content: unknown): string[] {
  if (typeof content === 'string') return content.trim() === '' ? [] : [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((block) =>
    typeof block === 'object' &&
    block !== null &&
    (block.type === 'text' || block.type === undefined) &&
    typeof block.text === 'string' &&
    block.text.trim() !== ''
      ? [block.text]
      : [],
  );
}

export function parseJsonLine(line: string): JsonLine | undefined {
  try {
    const value: unknown = parseWellFormedJson(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonLine) : undefined;
  } catch {
    return undefined;
  }
}
