// The normalized trace row that `tracer hook` appends to traces.jsonl, whatever
// the agent. It is the contract between capture (hooks) and attribution
// (ledgers): a ledger attributes an added line of a commit to a trace when the
// trace's `files[].line_hashes` for that path holds the hash of the line.
//
// `id` is the row's content id (wire contract), so it is computed last.
import { createHash } from 'node:crypto';

export interface TraceRecord {
  id: string;
  /** ISO-8601 UTC, when the hook ran. */
  ts: string;
  /** `claude-code`, `cursor` or `codex`. */
  agent: string;
  /** The agent's own event name, as given (`PostToolUse`, `afterFileEdit`, `Stop`, ...). */
  event: string;
  /** The agent's session or conversation id; links the trace to a transcript. */
  conversation_id?: string;
  /** Cursor's generation id, Codex's turn id, when given. */
  turn_id?: string;
  tool?: string;
  model?: string;
  /** Files the agent wrote in this event. */
  files?: TracedFile[];
  /** The user's prompt text is never stored; only its length, for context. */
  prompt_chars?: number;
  /** Token counts the agent's payload reported for its turn (Cursor's stop and afterAgentResponse). */
  usage?: { input: number; output: number; cache_write?: number; cache_read?: number };
}

export interface TracedFile {
  /** Path relative to the repository root, `/`-separated. */
  path: string;
  /** 1-based inclusive line ranges of what the agent wrote, as the file stands after the edit. */
  ranges: TracedRange[];
  /** `lineHash` of every non-blank line the agent wrote, in order. */
  line_hashes: string[];
}

export interface TracedRange {
  start_line: number;
  end_line: number;
  /** sha256 hex of the range's text (lines joined with "\n"). */
  content_sha256: string;
}

/**
 * A line's identity for attribution: the first 16 hex digits of the SHA-256 of
 * the line without its trailing whitespace (so CRLF and editor trimming do not
 * matter). 64 bits: collisions between lines of one file are not a concern.
 */
export function lineHash(line: string): string {
  return createHash('sha256').update(line.replace(/\s+$/u, ''), 'utf8').digest('hex').slice(0, 16);
}

/** Whether a line counts for attribution: blank lines are nobody's work. */
export function isAttributableLine(line: string): boolean {
  return line.trim() !== '';
}
