// Session summaries (spec §2.2 `session-summaries.jsonl`, latest per
// conversation_url) come from what the agent itself reports: the
// `last_assistant_message` of Codex's and Claude Code's Stop, the text of
// Cursor's afterAgentResponse, else the last assistant turn of the transcript
// (agent-transcript.ts). No model is called.
import { join } from 'node:path';
import { withContentId } from '../../core/content-id.js';
import { appendRecord, readRecords } from '../../store/jsonl.js';

export const SUMMARIES_FILE = 'session-summaries.jsonl';
/** A summary is a digest line, not a second transcript. */
export const SUMMARY_MAX_CHARS = 4000;

/** `claude-code://session/<id>`, `cursor://conversation/<id>` (Cursor names them conversations), `<agent>://session/<id>` for every other agent. */
export function conversationUrl(agent: string, conversationId: string): string {
  return `${agent}://${agent === 'cursor' ? 'conversation' : 'session'}/${encodeURIComponent(conversationId)}`;
}

export interface SummaryRecord {
  id: string;
  ts: string;
  conversation_url: string;
  summary: string;
  agent: string;
  conversation_id: string;
  [member: string]: unknown;
}

/** Appends the summary unless it is already the latest one of its conversation. Returns whether it did. */
export async function recordSummary(
  dir: string,
  /** `text` already redacted; `mark` says so in the record (src/redact/mark.ts). */
  input: { agent: string; conversationId: string; text: string; ts: string; mark?: Record<string, unknown> },
): Promise<boolean> {
  const summary = clip(input.text.trim());
  if (summary === '') return false;
  const path = join(dir, SUMMARIES_FILE);
  const url = conversationUrl(input.agent, input.conversationId);
  let latest: string | undefined;
  for await (const row of readRecords<Partial<SummaryRecord>>(path)) {
    if (row && row.conversation_url === url && typeof row.summary === 'string') latest = row.summary;
  }
  if (latest === summary) return false;
  const record = withContentId(
    { id: '', ts: input.ts, conversation_url: url, summary, agent: input.agent, conversation_id: input.conversationId, ...input.mark },
    'id',
  );
  appendRecord(path, record);
  return true;
}

/** Cut before a placeholder the limit falls inside, rather than through it. */
function clip(text: string): string {
  if (text.length <= SUMMARY_MAX_CHARS) return text;
  let end = SUMMARY_MAX_CHARS - 1;
  const open = text.lastIndexOf('[REDACTED:', end);
  if (open !== -1 && text.indexOf(']', open) >= end) end = open;
  return `${text.slice(0, end)}…`;
}
