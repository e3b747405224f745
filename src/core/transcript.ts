// What reading an agent's transcript gives, as types: the items of a
// conversation in order (the person's prompts, the assistant's words and tool
// calls, the tools' results), each in its turn, and the token usage the agent
// wrote down. An agent adapter brings its reader as a TranscriptFormat
// (AgentAdapter.transcript, loaded on first use); src/transcript/ runs it over
// the bytes of a snapshot, streamed. In core because adapters, the viewers, the
// search index and the cost figures all speak it, and none of them owns it.

/** Who an item is from. */
export type TranscriptRole = 'person' | 'assistant' | 'tool' | 'system';

/** One line of a diff a tool call made, for the session page. */
export interface DiffLine {
  op: '+' | '-' | ' ' | '@';
  text: string;
}

/** Where an item stands in its transcript; the same for the same bytes, and for every later snapshot that extends them. */
export interface ItemPlace {
  /** 0 before the person's first prompt, then one more at each prompt. */
  turn: number;
  /** Position within the turn, from 0 (a turn's prompt is step 0). */
  step: number;
  /** 1-based number of the record (a line of JSONL, an element of a JSON transcript) the item comes from. */
  record: number;
  /** Byte offset of that record in the transcript. */
  offset: number;
  /** ISO 8601, when the agent wrote the time down. */
  ts?: string;
}

export type TranscriptItem = ItemPlace &
  (
    | { kind: 'message'; role: 'person' | 'assistant' | 'system'; text: string; model?: string; truncated?: true }
    | { kind: 'thinking'; role: 'assistant'; text: string; model?: string; truncated?: true }
    | {
        kind: 'tool_call';
        role: 'assistant';
        /** The agent's id of the call, which its result names. */
        id?: string;
        name: string;
        /** The call's input as the agent gave it, serialized and clipped. */
        input: string;
        /** Files the call writes (created, edited, deleted), as the agent names them: absolute or relative to its folder. */
        files: string[];
        diff?: DiffLine[];
        model?: string;
        truncated?: true;
      }
    | { kind: 'tool_result'; role: 'tool'; id?: string; text: string; error?: true; truncated?: true }
    | { kind: 'meta'; role: 'system'; text: string }
  );

export type TranscriptItemKind = TranscriptItem['kind'];

/**
 * What a format makes of one record, before the reader places it: the reader
 * gives it its turn, step, record, offset and clips its text. A record holding
 * a `person` message opens a turn (one, however many blocks the prompt has);
 * give the person's own words only (a tool result or a context block the agent
 * adds in the person's name is `tool` or `system`). Empty texts are dropped.
 */
export type ItemDraft =
  | { kind: 'message'; role: 'person' | 'assistant' | 'system'; text: string; ts?: string; model?: string }
  | { kind: 'thinking'; text: string; ts?: string; model?: string }
  | { kind: 'tool_call'; id?: string; name: string; input: unknown; files?: string[]; diff?: DiffLine[]; ts?: string; model?: string }
  | { kind: 'tool_result'; id?: string; text: string; error?: boolean; ts?: string }
  | { kind: 'meta'; text: string; ts?: string };

/** Token counts of one model request, in the four kinds providers price apart. */
export interface UsageTokens {
  /** Input read at the full price: cache reads and writes are not in it (the reader takes them out where the agent counts them in). */
  input: number;
  /** Output, reasoning included. */
  output: number;
  /** Input written to the provider's prompt cache. */
  cacheWrite: number;
  /** Input read from the provider's prompt cache. */
  cacheRead: number;
  /** Of `output`, the reasoning ("thinking") tokens, where the agent tells them apart. */
  reasoning?: number;
  /** Of `cacheWrite`, the writes kept an hour rather than minutes (Anthropic prices them higher), where the agent tells them apart. */
  cacheWrite1h?: number;
}

/** The usage of one model request (or, where the agent writes only that, of a run of them), counted once. */
export interface UsageRecord {
  turn: number;
  /** 1-based record of the transcript it was read from. */
  record: number;
  ts?: string;
  /** As the agent names it; absent when the transcript does not say. */
  model?: string;
  tokens: UsageTokens;
  /** `request`: one model request; `session`: the agent writes only totals (a run's or a session's). */
  scope: 'request' | 'session';
}

/** Usage a transcript holds that is not counted, and why (`usage_malformed`, `usage_negative`, `usage_absurd`). */
export interface RefusedUsage {
  record: number;
  code: string;
  message: string;
}

export type UsageReport =
  | { usage: 'unknown'; reason: string }
  | { usage: 'known'; records: UsageRecord[]; refused: RefusedUsage[]; totals: UsageTokens; skipped: number };

/**
 * What a format reads from one record, before it is checked: token counts as
 * the agent wrote them (anything), already in the four kinds. A `key` makes a
 * later draft of the same key replace the earlier one (an assistant message
 * Claude Code writes over several lines, a Gemini message recorded again).
 */
export interface UsageDraft {
  key?: string;
  ts?: string;
  model?: string;
  tokens: { input: unknown; output: unknown; cacheWrite: unknown; cacheRead: unknown; reasoning?: unknown; cacheWrite1h?: unknown };
  scope?: 'request' | 'session';
}

/** What a format may keep between records of one read. */
export interface ReadState {
  /** The model the agent says it uses from here on (Codex's turn_context, Copilot's model change); kept by a page cursor. */
  model?: string;
  /**
   * A little the format must know across a page cursor (Gemini CLI: what it has
   * read of the message it may write again): JSON, kept by the cursor while it
   * serializes to at most 1 KB.
   */
  carry?: unknown;
  /** The format's own notes for this read (Codex's running token totals); a cursor does not keep them. */
  own: Record<string, unknown>;
}

/**
 * How one agent's transcripts are read: an adapter's `transcript()` resolves to
 * it. Records are the lines of a JSONL file or the elements of a JSON one
 * (a top-level array, or the array in `documentMember` of a top-level object,
 * whose other members come as `{member: value}` records of their own).
 */
export interface TranscriptFormat {
  /** The agent's id, as the adapter's. */
  agent: string;
  documentMember?: string;
  /** The items of one parsed record, in order. */
  items(record: unknown, state: ReadState): ItemDraft[];
  /**
   * A cheap test on a record's raw text: false only where the record surely
   * holds no person's prompt. Lets a scan for where turns start skip parsing.
   */
  mayStartTurn?(text: string): boolean;
  /** The usage a record holds; `unknown` (with the reason) when this agent's transcripts hold none, never zero. */
  usage: { unknown: string } | UsageReader;
  /** Whether a first record is this agent's: for a transcript whose agent is not recorded. */
  recognizes?(record: unknown): boolean;
  /**
   * The bytes to snapshot when the agent keeps its conversation in no single
   * file (a database): given what the adapter's normalize set as the
   * transcript path. Absent: the file itself is snapshotted.
   */
  snapshot?(transcriptPath: string, conversationId: string): AsyncIterable<Buffer>;
}

export interface UsageReader {
  /** A cheap test on a record's raw text: false only where it surely holds no usage. */
  mayHold?(text: string): boolean;
  read(record: unknown, state: ReadState): UsageDraft[];
}

/** A transcript's bytes: where they are read from does not matter to the reader (a snapshot file, a blob on the service). */
export interface TranscriptSource {
  size: number;
  /** The bytes from `start` to the end; the reader stops iterating (which must release the stream) as soon as it has enough. */
  open(start: number): Promise<AsyncIterable<Buffer>>;
  /** All of them, when they are in memory already: a scan then reads them without a promise per record. */
  bytes?: Buffer;
}

/**
 * How records are laid out, found at the start of the file and carried by a
 * cursor: JSON lines; the elements of a top-level array; the elements of a
 * document's member array; the document's members after that array.
 */
export type TranscriptContainer = 'lines' | 'array' | 'member' | 'object';

/** Where a read stopped, to go on from there: the next record's offset and the place the reader had reached. */
export interface TranscriptCursor {
  offset: number;
  /** Records before `offset`. */
  record: number;
  turn: number;
  /** Steps of `turn` before `offset`. */
  step: number;
  container: TranscriptContainer;
  model?: string;
  /** ReadState.carry at that point. */
  carry?: unknown;
}
