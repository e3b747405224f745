// The one reader of ledgers for attribution: it turns a line of ledgers.jsonl
// into the few Agent Trace members that say who wrote which line
// (`files[].path`, `conversations[].contributor`, `conversations[].url`,
// `ranges[].start_line/end_line`). It accepts the line as tracer wrote it up
// to now (the record's members at the top) and with the record under `record`
// (`line.record ?? line`), and ignores everything else, so a change in
// tracer's own members never changes what blame, show or stats say.
import { join } from 'node:path';
import { conversationTraceIds, ledgerCommitOf, ledgerRecordOf, recoveredRanges } from '../capture/ledger/ledger-line.js';
import { readRecordsFrom } from '../store/jsonl.js';

/** `unknown`: a reconciled commit's line whose source commit has no ledger. */
export type LineType = 'ai' | 'human' | 'mixed' | 'unknown';

export interface ConversationView {
  type: LineType;
  model_id: string | null;
  url: string | null;
  /** From the URL's scheme: `claude-code`, `cursor`, `codex`, or whatever scheme another writer used. */
  agent: string | null;
  /** The traces the conversation's `related` names (reconcile carries them to the commit that lands). */
  traces: readonly string[];
}

export interface RangeView {
  start: number;
  end: number;
  /** Agent Trace `content_hash`, when the range has one. */
  hash: string | null;
  conversation: ConversationView;
}

export interface LedgerView {
  commit: string;
  /** The ledger's content id (`sha`), when it has one. */
  sha: string | null;
  /** Committer time of the commit, as the ledger records it (`ts`). */
  ts: string | null;
  /** path → ranges sorted by start line. */
  files: Map<string, RangeView[]>;
  conversations: ConversationView[];
  /** Set by reconcile: the branch commits the lines came from, and those of them that had no ledger yet. */
  reconciled?: { from: string[]; without_ledger: string[] };
  /** Set by reconcile's recovery by content hash: path → line ranges re-attached that way. */
  recovered?: Map<string, Array<[number, number]>>;
}

export const LEDGERS_FILE = 'ledgers.jsonl';

export function readLedgerLine(line: unknown): LedgerView | undefined {
  // Either shape (record under `record`, or its members at the top): capture's one reader decides.
  const found = ledgerRecordOf(line);
  const commit = ledgerCommitOf(line);
  if (found === undefined || commit === undefined || !isObject(line)) return undefined;
  const record = found as unknown as Record<string, unknown>;
  const files = new Map<string, RangeView[]>();
  const conversations = new Map<string, ConversationView>();
  for (const file of list(record.files)) {
    const path = text(file.path);
    if (path === undefined) continue;
    const ranges = files.get(path) ?? [];
    for (const raw of list(file.conversations)) {
      const whole = conversationOf(raw.contributor, raw.url, conversationTraceIds(raw));
      if (!whole) continue;
      const key = `${whole.type}\u0000${whole.model_id ?? ''}\u0000${whole.url ?? ''}`;
      const seen = conversations.get(key);
      const conversation = seen ? { ...seen, traces: union(seen.traces, whole.traces) } : whole;
      conversations.set(key, conversation);
      for (const range of list(raw.ranges)) {
        const start = range.start_line;
        const end = range.end_line;
        if (!Number.isInteger(start) || !Number.isInteger(end) || (start as number) < 1 || (end as number) < (start as number)) continue;
        // Agent Trace lets a range name its own contributor; it wins over the conversation's.
        const own = isObject(range.contributor) ? conversationOf(range.contributor, raw.url, whole.traces) : undefined;
        ranges.push({
          start: start as number,
          end: end as number,
          hash: text(range.content_hash) ?? null,
          conversation: own ?? conversation,
        });
      }
    }
    ranges.sort((a, b) => a.start - b.start || a.end - b.end);
    files.set(path, ranges);
  }
  const view: LedgerView = {
    commit,
    sha: text(line.sha) ?? null,
    ts: text(line.ts) ?? null,
    files,
    conversations: [...conversations.values()],
  };
  const tracer = isObject(record.metadata) && isObject(record.metadata['dev.tracer']) ? record.metadata['dev.tracer'] : {};
  if (isObject(tracer.reconciled)) {
    view.reconciled = { from: strings(tracer.reconciled.from), without_ledger: strings(tracer.reconciled.without_ledger) };
  }
  const recovered = recoveredRanges(record);
  if (recovered.size > 0) view.recovered = recovered;
  return view;
}

/** The contributor of a line: the range that covers it, or a person when the ledger covers it with none. */
export function lineContributor(ledger: LedgerView, path: string, line: number): ConversationView {
  const ranges = ledger.files.get(path);
  if (!ranges) return HUMAN;
  let found: ConversationView | undefined;
  // Ranges are sorted by start; a binary search finds the last one starting at or before the line.
  let low = 0;
  let high = ranges.length - 1;
  let last = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (ranges[middle]!.start <= line) {
      last = middle;
      low = middle + 1;
    } else high = middle - 1;
  }
  // Ranges of one ledger rarely overlap; when they do, every covering range counts.
  for (let index = last; index >= 0; index -= 1) {
    const range = ranges[index]!;
    if (range.end < line) continue;
    if (!found) found = range.conversation;
    else if (found.type !== range.conversation.type) return { ...found, type: 'mixed' };
  }
  return found ?? HUMAN;
}

/** Whether reconcile re-attached this line by content hash rather than by following it through the diffs. */
export function lineRecovered(ledger: LedgerView, path: string, line: number): boolean {
  return (ledger.recovered?.get(path) ?? []).some(([start, end]) => start <= line && line <= end);
}

export const HUMAN: ConversationView = Object.freeze({ type: 'human', model_id: null, url: null, agent: null, traces: [] });

/** `claude-code://session/…` → `claude-code`. */
export function agentOfUrl(url: string | null): string | null {
  if (url === null) return null;
  const colon = url.indexOf('://');
  const scheme = colon === -1 ? '' : url.slice(0, colon);
  return SCHEME.test(scheme) ? scheme.toLowerCase() : null;
}

const SCHEME = /^[a-z][a-z0-9+.-]*$/i;

/**
 * Every ledger of the wanted commits (all commits when `wanted` is undefined),
 * read in one pass over ledgers.jsonl; the last line of a commit wins, as it
 * is the newest attribution of it (a rerun, or a ledger pulled later). A line
 * is parsed only when a commit id it names is wanted.
 */
export async function readLedgers(
  projectDir: string,
  wanted?: ReadonlySet<string>,
  onCorrupt?: (line: number) => void,
  /** Sees every line's raw text, wanted or not (the cost figures collect the conversation URLs of all ledgers). */
  onLine?: (text: string) => void,
): Promise<Map<string, LedgerView>> {
  const found = new Map<string, LedgerView>();
  const mayMatch =
    wanted === undefined
      ? onLine && ((line: string) => (onLine(line), true))
      : (line: string) => {
          onLine?.(line);
          return namesWanted(line, wanted);
        };
  const options = { mayMatch, onCorrupt: onCorrupt && ((corrupt: { line: number }) => onCorrupt(corrupt.line)) };
  for await (const entry of readRecordsFrom<unknown>(join(projectDir, LEDGERS_FILE), { offset: 0, line: 0 }, options)) {
    if (!entry.ok) continue;
    const ledger = readLedgerLine(entry.value);
    if (ledger && (wanted === undefined || wanted.has(ledger.commit))) found.set(ledger.commit, ledger);
  }
  return found;
}

const COMMIT_MEMBER = /"(?:commit|revision)"\s*:\s*"([0-9a-f]{40}(?:[0-9a-f]{24})?)"/g;

function namesWanted(line: string, wanted: ReadonlySet<string>): boolean {
  for (const match of line.matchAll(COMMIT_MEMBER)) if (wanted.has(match[1]!)) return true;
  return false;
}

function conversationOf(contributor: unknown, url: unknown, traces: readonly string[]): ConversationView | undefined {
  if (!isObject(contributor)) return undefined;
  const type = contributor.type;
  if (type !== 'ai' && type !== 'human' && type !== 'mixed' && type !== 'unknown') return undefined;
  const link = text(url) ?? null;
  return { type, model_id: text(contributor.model_id) ?? null, url: link, agent: agentOfUrl(link), traces };
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function union(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])].sort();
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function list(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
