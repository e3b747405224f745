import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { withContentId } from '../../core/content-id.js';
import { appendRecord, readRecords } from '../../store/jsonl.js';
import type { AgentName } from './hook-event.js';
import { parseWellFormedJson } from './well-formed.js';

/**
 * Session summaries (spec §2.2 `session-summaries.jsonl`, latest per
 * conversation_url) come from what the agent itself reports: Codex's
 * `last_assistant_message`, or the last assistant turn of a Claude Code
 * transcript. No model is called.
 */
export const SUMMARIES_FILE = 'session-summaries.jsonl';
/** A summary is a digest line, not a second transcript. */
export const SUMMARY_MAX_CHARS = 4000;
/** How far back from the end of a transcript the last assistant turn is looked for. */
const TAIL_CAP_BYTES = 8 * 1024 * 1024;
const TAIL_CHUNK_BYTES = 64 * 1024;

const URL_KIND: Record<AgentName, string> = { 'claude-code': 'session', cursor: 'conversation', codex: 'session' };

/** `claude-code://session/<id>`, `cursor://conversation/<id>`, `codex://session/<id>`. */
export function conversationUrl(agent: AgentName, conversationId: string): string {
  return `${agent}://${URL_KIND[agent]}/${encodeURIComponent(conversationId)}`;
}

export interface SummaryRecord {
  id: string;
  ts: string;
  conversation_url: string;
  summary: string;
  agent: AgentName;
  conversation_id: string;
  [member: string]: unknown;
}

/** Appends the summary unless it is already the latest one of its conversation. Returns whether it did. */
export async function recordSummary(
  dir: string,
  input: { agent: AgentName; conversationId: string; text: string; ts: string },
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
    { id: '', ts: input.ts, conversation_url: url, summary, agent: input.agent, conversation_id: input.conversationId },
    'id',
  );
  appendRecord(path, record);
  return true;
}

function clip(text: string): string {
  return text.length <= SUMMARY_MAX_CHARS ? text : `${text.slice(0, SUMMARY_MAX_CHARS - 1)}…`;
}

/**
 * The text of the last assistant message in a Claude Code JSONL transcript. One
 * message may span several lines (one per content block, sharing `message.id`),
 * so the text blocks of that message are gathered until an earlier message starts.
 */
export async function lastClaudeAssistantText(transcriptPath: string): Promise<string | undefined> {
  let messageId: string | undefined;
  let texts: string[] = [];
  for await (const line of linesFromEnd(transcriptPath)) {
    const entry = parseLine(line);
    if (!entry) continue;
    const message = entry.message as { id?: unknown; content?: unknown } | undefined;
    if (entry.type !== 'assistant' || typeof message !== 'object' || message === null) {
      if (texts.length > 0 && entry.type === 'user') break;
      continue;
    }
    const id = typeof message.id === 'string' ? message.id : undefined;
    if (texts.length > 0 && id !== messageId) break;
    const blockTexts = textBlocks(message.content);
    if (texts.length === 0 && blockTexts.length === 0) continue;
    messageId = id;
    texts = [...blockTexts, ...texts];
  }
  return texts.length > 0 ? texts.join('\n\n') : undefined;
}

function textBlocks(content: unknown): string[] {
  if (typeof content === 'string') return content.trim() === '' ? [] : [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((block) =>
    typeof block === 'object' && block !== null && block.type === 'text' && typeof block.text === 'string' && block.text.trim() !== ''
      ? [block.text]
      : [],
  );
}

function parseLine(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = parseWellFormedJson(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Complete lines, last first, reading backwards in chunks and never past TAIL_CAP_BYTES. */
async function* linesFromEnd(path: string): AsyncGenerator<string> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    let position = size;
    let carry = Buffer.alloc(0);
    while (position > 0 && size - position < TAIL_CAP_BYTES) {
      const length = Math.min(TAIL_CHUNK_BYTES, position);
      position -= length;
      const chunk = Buffer.alloc(length);
      await handle.read(chunk, 0, length, position);
      const buffer = Buffer.concat([chunk, carry]);
      let end = buffer.length;
      while (end > 0) {
        const newline = buffer.lastIndexOf(0x0a, end - 1);
        if (newline === -1) break;
        if (newline + 1 < end) yield buffer.subarray(newline + 1, end).toString('utf8');
        end = newline;
      }
      carry = buffer.subarray(0, end);
    }
    if (position === 0 && carry.length > 0) yield carry.toString('utf8');
  } finally {
    await handle.close();
  }
}
