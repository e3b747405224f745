import { join } from 'node:path';
import type { FamilyDefinition } from '../kernel/families.js';
import type { FamilyStore } from '../kernel/types.js';
import { appendRecords, readRecords, readRecordsFrom, tailBefore } from '../store/jsonl.js';
import { rewriteJsonl } from '../store/jsonl-rewrite.js';

/** The store of a family kept in one append-only JSONL file (traces, ledgers, ...). */
export function jsonlFamilyStore(projectDir: string, definition: FamilyDefinition): FamilyStore {
  const file = definition.file;
  if (!file) throw new Error(`family "${definition.name}" has neither a file nor a store of its own`);
  const path = join(projectDir, file);
  return {
    async *records(warn) {
      for await (const record of readRecords<unknown>(path, {
        onCorrupt: (line) => warn(unreadableLine(line.path, line.line, line.torn)),
      })) {
        if (typeof record === 'object' && record !== null && !Array.isArray(record)) yield record as Record<string, unknown>;
        else warn({ code: 'invalid_local_record', message: `${path} holds a line that is not a JSON object; it is skipped.` });
      }
    },
    async scan(mark, warn) {
      const usable = mark !== undefined && tailBefore(path, mark.offset) === mark.tail;
      const from = usable ? { offset: mark.offset, line: mark.line } : { offset: 0, line: 0 };
      async function* lines() {
        for await (const entry of readRecordsFrom<unknown>(path, from, {
          onCorrupt: (line) => warn(unreadableLine(line.path, line.line, line.torn)),
        })) {
          if (entry.ok && typeof entry.value === 'object' && entry.value !== null && !Array.isArray(entry.value)) {
            yield { record: entry.value as Record<string, unknown>, text: entry.text, end: entry.end, line: entry.line };
            continue;
          }
          if (entry.ok) warn({ code: 'invalid_local_record', message: `${path} holds a line that is not a JSON object; it is skipped.` });
          yield { end: entry.end, line: entry.line };
        }
      }
      return { resumedFrom: usable ? mark : undefined, lines: lines() };
    },
    markAt(end, line, records) {
      const tail = tailBefore(path, end);
      return tail === undefined ? undefined : { offset: end, line, records, tail };
    },
    keyOf: (record) => recordKey(definition, record),
    async append(records, lines) {
      appendRecords(path, records, lines);
    },
    rewrite: async (change) => (await rewriteJsonl(path, { change })).replaced,
    async remove(judge) {
      return (await rewriteJsonl(path, { needles: judge.needles, change: (record) => (judge.drop(record) ? null : undefined) })).removed;
    },
  };
}

/** Content id when the family has one, else its identity members joined by ":". */
export function recordKey(definition: FamilyDefinition, record: Record<string, unknown>): string | undefined {
  if (definition.idMember !== null) {
    const id = record[definition.idMember];
    return typeof id === 'string' && id !== '' ? id : undefined;
  }
  const parts = (definition.identity ?? []).map((member) => record[member]);
  return parts.every((part) => typeof part === 'string' && part !== '') ? parts.join(':') : undefined;
}

export function unreadableLine(path: string, line: number, torn: boolean) {
  return {
    code: torn ? 'torn_line' : 'unreadable_line',
    message: torn
      ? `${path} ends in a torn line ${line} (an interrupted write); it is skipped and left in place.`
      : `${path} line ${line} is not valid JSON; it is skipped and left in place.`,
  };
}
