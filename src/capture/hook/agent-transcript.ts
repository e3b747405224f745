// What a stop hook reads from the end of an agent's own transcript: the last
// thing the assistant said. (The model, which a tool-use hook needs, is read by
// claude-code.ts itself, without loading this module.)
//
// Claude Code writes JSONL entries `{type, isSidechain, message: {id, model,
// content}}`; one message may span several lines (one per content block, sharing
// `message.id`). Subagent turns (`isSidechain`), messages Claude Code made up
// itself (model `<synthetic>`, e.g. "No response requested.") and API errors
// (`isApiErrorMessage`) are not the assistant's words. Cursor writes
// `{role, message: {content: [{type: "text", text}]}}`.
import { linesFromEnd } from './tail-lines.js';
import { parseWellFormedJson } from './well-formed.js';

/** Far enough back for the longest turn. */
const SUMMARY_CAP_BYTES = 8 * 1024 * 1024;
const SYNTHETIC_MODEL = '<synthetic>';

type Entry = Record<string, unknown>;

export interface LastAssistant {
  text?: string;
  /** Whether the transcript's latest conversational entry is that message: false when the final reply is not written yet. */
  isLatest: boolean;
}

/** The text of the last real assistant message in a Claude Code transcript. */
export async function lastClaudeAssistant(transcriptPath: string): Promise<LastAssistant> {
  let messageId: string | undefined;
  let texts: string[] = [];
  let isLatest = true;
  for await (const line of linesFromEnd(transcriptPath, SUMMARY_CAP_BYTES)) {
    const entry = parseLine(line);
    if (!entry || entry.isSidechain === true || entry.isMeta === true) continue;
    if (!isClaudeAssistant(entry) || isMadeUp(entry)) {
      if (entry.type === 'user') {
        if (texts.length > 0) break;
        isLatest = false;
      }
      continue;
    }
    const message = entry.message as { id?: unknown; content?: unknown };
    const id = typeof message.id === 'string' ? message.id : undefined;
    if (texts.length > 0 && id !== messageId) break;
    const blockTexts = textBlocks(message.content);
    if (texts.length === 0 && blockTexts.length === 0) continue;
    messageId = id;
    texts = [...blockTexts, ...texts];
  }
  return texts.length > 0 ? { text: texts.join('\n\n'), isLatest } : { isLatest: false };
}

/** The text of the last assistant entry of a Cursor JSONL transcript. */
export async function lastCursorAssistantText(transcriptPath: string): Promise<string | undefined> {
  for await (const line of linesFromEnd(transcriptPath, SUMMARY_CAP_BYTES)) {
    const entry = parseLine(line);
    if (!entry || (entry.role ?? entry.type) !== 'assistant') continue;
    const message = entry.message as { content?: unknown } | undefined;
    const texts = textBlocks(typeof message === 'object' && message !== null ? message.content : entry.text);
    if (texts.length > 0) return texts.join('\n\n');
  }
  return undefined;
}

function isClaudeAssistant(entry: Entry): boolean {
  return entry.type === 'assistant' && typeof entry.message === 'object' && entry.message !== null && entry.isSidechain !== true;
}

function isMadeUp(entry: Entry): boolean {
  return entry.isApiErrorMessage === true || (entry.message as { model?: unknown }).model === SYNTHETIC_MODEL;
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

function parseLine(line: string): Entry | undefined {
  try {
    const value: unknown = parseWellFormedJson(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Entry) : undefined;
  } catch {
    return undefined;
  }
}
