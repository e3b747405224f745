// What traces.jsonl says of each conversation, for the cost figures: its agent,
// its time span, the lines its edits wrote (every non-blank line an edit put in
// a file, `files[].line_hashes`, counted per edit) and the token usage its
// agent reported in hook payloads (Cursor's). traces.jsonl is append-only and
// large, so the summary is kept in `<project>/cache/trace-summary.json` with
// the offset it has read up to, and each run reads only what was appended; a
// file that was replaced (its bytes before that offset changed) is read again.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PROJECT_STATE_FILES } from '../store/home.js';
import { writeFileAtomic } from '../files/atomic-write.js';
import { ensureDir } from '../files/index.js';
import { readRecordsFrom, tailBefore, type CorruptLine } from '../store/jsonl.js';

export const TRACE_SUMMARY_FILE = join(PROJECT_STATE_FILES.cache, 'trace-summary.json');
const SUMMARY_VERSION = 1;

/** A reported usage as a trace row holds it: [turn key, ts, model, input, output, cache write, cache read] (as written: checked when counted). */
export type ReportedUsage = [string, string | null, string | null, unknown, unknown, unknown, unknown];

export interface ConversationTraces {
  agent: string | null;
  first_ts: string;
  last_ts: string;
  traces: number;
  /** Lines the conversation's edits wrote, all of them. */
  written: number;
  /** Of `written`, by the model the trace names ('' when none). */
  written_by_model: Record<string, number>;
  reported: ReportedUsage[];
}

interface SummaryFile {
  v: number;
  offset: number;
  line: number;
  tail: string | null;
  conversations: Record<string, ConversationTraces>;
}

/** Each conversation's traces, brought up to date with traces.jsonl; the summary file is rewritten when anything was appended. */
export async function traceSummary(projectDir: string): Promise<Map<string, ConversationTraces>> {
  const tracesPath = join(projectDir, 'traces.jsonl');
  const cachePath = join(projectDir, TRACE_SUMMARY_FILE);
  let summary = await readSummary(cachePath);
  if (summary && summary.offset > 0 && tailBefore(tracesPath, summary.offset) !== (summary.tail ?? undefined)) summary = undefined;
  summary ??= { v: SUMMARY_VERSION, offset: 0, line: 0, tail: null, conversations: {} };
  const conversations = new Map(Object.entries(summary.conversations));
  let offset = summary.offset;
  let line = summary.line;
  let torn = false;
  const onCorrupt = (corrupt: CorruptLine) => (torn ||= corrupt.torn);
  for await (const entry of readRecordsFrom<unknown>(tracesPath, { offset, line }, { onCorrupt })) {
    // A torn last line (a hook still writing) is read again next time.
    if (torn) break;
    if (entry.ok) add(conversations, entry.value);
    offset = entry.end;
    line = entry.line;
  }
  if (offset !== summary.offset) {
    const next: SummaryFile = {
      v: SUMMARY_VERSION,
      offset,
      line,
      tail: tailBefore(tracesPath, offset) ?? null,
      conversations: Object.fromEntries(conversations),
    };
    try {
      await ensureDir(join(projectDir, PROJECT_STATE_FILES.cache));
      await writeFileAtomic(cachePath, JSON.stringify(next));
    } catch {
      // Only a cache: a read-only home reads traces.jsonl again next time.
    }
  }
  return conversations;
}

/** The summary of some trace rows already read (a session's own rows, as the viewer holds them). */
export function summarizeTraces(rows: Iterable<unknown>): Map<string, ConversationTraces> {
  const conversations = new Map<string, ConversationTraces>();
  for (const row of rows) add(conversations, row);
  return conversations;
}

function add(conversations: Map<string, ConversationTraces>, row: unknown): void {
  if (!isObject(row)) return;
  const id = text(row.conversation_id);
  const ts = text(row.ts);
  if (id === undefined || ts === undefined) return;
  let conversation = conversations.get(id);
  if (!conversation) {
    conversation = { agent: null, first_ts: ts, last_ts: ts, traces: 0, written: 0, written_by_model: {}, reported: [] };
    conversations.set(id, conversation);
  }
  conversation.traces += 1;
  conversation.agent ??= text(row.agent) ?? null;
  if (ts < conversation.first_ts) conversation.first_ts = ts;
  if (ts > conversation.last_ts) conversation.last_ts = ts;
  const model = text(row.model) ?? '';
  let written = 0;
  if (Array.isArray(row.files))
    for (const file of row.files) if (isObject(file) && Array.isArray(file.line_hashes)) written += file.line_hashes.length;
  if (written > 0) {
    conversation.written += written;
    conversation.written_by_model[model] = (conversation.written_by_model[model] ?? 0) + written;
  }
  if (isObject(row.usage)) {
    const usage = row.usage;
    const turn = text(row.turn_id) ?? `#${text(row.id) ?? conversation.traces}`;
    conversation.reported.push([turn, ts, model || null, usage.input, usage.output, usage.cache_write, usage.cache_read]);
  }
}

async function readSummary(path: string): Promise<SummaryFile | undefined> {
  try {
    const value = JSON.parse(await readFile(path, 'utf8')) as Partial<SummaryFile>;
    if (
      value.v === SUMMARY_VERSION &&
      typeof value.offset === 'number' &&
      typeof value.line === 'number' &&
      isObject(value.conversations) &&
      (value.tail === null || typeof value.tail === 'string')
    )
      return value as SummaryFile;
  } catch {
    // Missing or damaged: built again from traces.jsonl.
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
