// Reading a ledger line, whichever shape wrote it. Since ledger format 1 the
// attribution is the `record` member, a pure Agent Trace record. Ledgers written
// before it carry the record's members (`version`, `id`, `timestamp`, `vcs`,
// `tool`, `files`, `metadata`) at the top level, next to tracer's own, with each
// conversation's traces as `trace_ids` and a `contributor` on every file. Both
// stay valid rows on disk and on services; every reader goes through here.
import type { AgentTraceRecord, RecordConversation } from './ledger-record.js';

const RECORD_MEMBERS = ['version', 'id', 'timestamp', 'vcs', 'tool', 'files', 'metadata'] as const;
const TRACE_URL = /^tracer:\/\/trace\/(.+)$/;

/**
 * The Agent Trace record of a ledger line (a parsed JSON value): its `record`
 * member, or for an old-shape line the record members gathered from the top
 * level (the files and conversations then keep their old extra members).
 * Undefined when the value is not a ledger.
 */
export function ledgerRecordOf(line: unknown): AgentTraceRecord | undefined {
  if (!isObject(line)) return undefined;
  if (isObject(line.record)) return Array.isArray(line.record.files) ? (line.record as unknown as AgentTraceRecord) : undefined;
  if (!Array.isArray(line.files)) return undefined;
  const record: Record<string, unknown> = {};
  for (const member of RECORD_MEMBERS) if (line[member] !== undefined) record[member] = line[member];
  return record as unknown as AgentTraceRecord;
}

/** The commit a ledger line attributes: its `commit`, else its record's git revision. */
export function ledgerCommitOf(line: unknown): string | undefined {
  if (!isObject(line)) return undefined;
  if (typeof line.commit === 'string') return line.commit;
  const vcs = ledgerRecordOf(line)?.vcs;
  return typeof vcs?.revision === 'string' ? vcs.revision : undefined;
}

/** The trace ids behind one conversation of a record: `related` traces, or an old ledger's `trace_ids`. */
export function conversationTraceIds(conversation: RecordConversation | Record<string, unknown>): string[] {
  const ids: string[] = [];
  const old = (conversation as { trace_ids?: unknown }).trace_ids;
  if (Array.isArray(old)) for (const id of old) if (typeof id === 'string') ids.push(id);
  const related = (conversation as { related?: unknown }).related;
  if (Array.isArray(related)) {
    for (const resource of related) {
      const match = isObject(resource) && typeof resource.url === 'string' ? TRACE_URL.exec(resource.url) : null;
      if (match) ids.push(decodeURIComponent(match[1]!));
    }
  }
  return ids;
}

/**
 * `metadata["dev.tracer"].recovered` of a record (path → [[start, end], …]):
 * the agent lines reconcile re-attached by content hash. Pairs that are not a
 * range of lines are skipped, and a path left with none.
 */
export function recoveredRanges(record: Record<string, unknown>): Map<string, Array<[number, number]>> {
  const tracer = isObject(record.metadata) && isObject(record.metadata['dev.tracer']) ? record.metadata['dev.tracer'] : {};
  const found = new Map<string, Array<[number, number]>>();
  if (!isObject(tracer.recovered)) return found;
  for (const [path, pairs] of Object.entries(tracer.recovered)) {
    if (!Array.isArray(pairs)) continue;
    const ranges = pairs.filter(
      (pair): pair is [number, number] =>
        Array.isArray(pair) && Number.isInteger(pair[0]) && Number.isInteger(pair[1]) && pair[0] <= pair[1],
    );
    if (ranges.length > 0)
      found.set(
        path,
        ranges.map(([start, end]) => [start, end]),
      );
  }
  return found;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
