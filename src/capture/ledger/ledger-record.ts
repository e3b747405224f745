// A ledger: one commit's attribution. The line in ledgers.jsonl holds tracer's
// wire members (`sha`, the content id; `ts`; `commit`; `trace_ids`) and `record`,
// a pure Agent Trace record (https://agent-trace.dev, README §6.1) that validates
// even under a validator refusing unknown members. The git note on the commit is
// that record, byte for byte. What tracer knows beyond the spec goes where the
// spec allows it: `metadata["dev.tracer"]`, and each conversation's traces as
// `related` resources (`{type: "trace", url: "tracer://trace/<id>"}`).
//
// Everything in it derives from the commit and the traces: no clock, no host, no
// absolute path, no random id, no package version, and every list sorted. The
// same commit and traces therefore give the same bytes, and the same `sha`, on
// every machine and from every tracer release.
import { canonicalJson, sha256Hex, withContentId } from '../../core/content-id.js';
import { modelsDevId } from '../../core/model-id.js';
import { conversationUrl } from '../hook/summary.js';
import { AGENT_ID } from '../hook/hook-event.js';
import { compare, type Attribution, type AttributedLine } from './attribute.js';
import type { CommitInfo } from './commit-diff.js';
import type { KeptSubject } from './link-subject.js';
import type { WindowTrace } from './trace-window.js';

export const AGENT_TRACE_VERSION = '0.1.0';
/** The shape of tracer's records, not the package version (which would make bytes differ between releases). */
export const TOOL = { name: 'tracer', version: '1' } as const;
export const TRACE_RELATION = 'trace';
export const LEDGERS_FILE = 'ledgers.jsonl';
export const COMMIT_LINKS_FILE = 'commit-links.jsonl';

export type ContributorType = 'ai' | 'human' | 'mixed' | 'unknown';

export interface Contributor {
  type: ContributorType;
  model_id?: string;
}

export interface RecordRange {
  start_line: number;
  end_line: number;
  /** `sha256:` + hex SHA-256 of the range's lines joined with "\n". */
  content_hash?: string;
  contributor?: Contributor;
}

export interface RelatedResource {
  type: string;
  url: string;
}

export interface RecordConversation {
  url?: string;
  contributor?: Contributor;
  ranges: RecordRange[];
  /** For tracer: the traces whose lines these ranges are (absent for a person's lines). */
  related?: RelatedResource[];
}

export interface RecordFile {
  path: string;
  conversations: RecordConversation[];
}

export interface TracerMetadata extends TracerMetadataExtras {
  parents: string[];
  lines: { ai: number; human: number; mixed?: number; unknown?: number };
}

/** An Agent Trace record as tracer writes it. */
export interface AgentTraceRecord {
  version: string;
  /** A UUID derived from the content (RFC 9562 version 8), for Agent Trace readers that want one. */
  id: string;
  timestamp: string;
  vcs?: { type: string; revision: string };
  tool?: { name: string; version: string };
  files: RecordFile[];
  metadata?: { 'dev.tracer'?: TracerMetadata; [key: string]: unknown };
}

export interface Ledger {
  sha: string;
  ts: string;
  commit: string;
  trace_ids: string[];
  record: AgentTraceRecord & { metadata: { 'dev.tracer': TracerMetadata } };
  [member: string]: unknown;
}

export interface CommitLink {
  id: string;
  ts: string;
  commit: string;
  /** Conversations (agent sessions) whose traces the commit's ledger uses. */
  session_ids: string[];
  trace_ids: string[];
  ledger_sha: string;
  /** The commit this one replaced by an amend or a rebase. */
  rewritten_from?: string;
  /** The commit named, for pages that list commits without a repository (issue 32); links written before have none. */
  subject?: string;
  author_name?: string;
  /** Committer time, ISO-8601 UTC (the same as `ts`, under a name that says so). */
  committed_at?: string;
  [member: string]: unknown;
}

/**
 * Who wrote one line of a record: a conversation, or (undefined) a person.
 * Lines with one key share a conversation entry. The post-commit hook derives
 * it from a trace; reconcile copies it from the ledger of the line's source.
 */
export interface LineAuthor {
  key: string;
  conversation: Omit<RecordConversation, 'ranges' | 'related'>;
  traceIds: readonly string[];
}

export interface RecordLine {
  /** 1-based line number in the file as the commit has it. */
  line: number;
  text: string;
  /** A blank line is nobody's work: it only joins the ranges around it. */
  blank?: true;
  author?: LineAuthor;
  /** Reconcile only: the path the line had in the branch commit it was carried from, when that differs (a rename). */
  sourcePath?: string;
}

/** What reconcile adds to `metadata["dev.tracer"]`; a commit's own ledger has none of it. */
export interface TracerMetadataExtras {
  reconciled?: { from: string[]; without_ledger?: string[] };
  recovered?: Record<string, Array<[number, number]>>;
}

export function buildLedger(info: CommitInfo, attribution: Attribution): Ledger {
  const files = new Map<string, RecordLine[]>();
  for (const [path, attributed] of attribution.files) files.set(path, attributed.map(recordLineOf));
  return buildRecordLedger(info, files);
}

/**
 * A ledger from lines whose authors are decided. Blank lines count for nobody;
 * `mixed` and `unknown` totals appear only when some line is so, so a commit's
 * own ledger keeps the bytes it always had.
 */
export function buildRecordLedger(
  info: CommitInfo,
  attributed: ReadonlyMap<string, readonly RecordLine[]>,
  extras: TracerMetadataExtras = {},
): Ledger {
  const files: RecordFile[] = [];
  const traceIds = new Set<string>();
  const lines: TracerMetadata['lines'] = { ai: 0, human: 0 };
  for (const [path, fileLines] of [...attributed].sort(([a], [b]) => compare(a, b))) {
    for (const line of fileLines) {
      if (line.blank) continue;
      for (const id of line.author?.traceIds ?? []) traceIds.add(id);
      const type = line.author?.conversation.contributor?.type ?? 'human';
      lines[type] = (lines[type] ?? 0) + 1;
    }
    files.push(recordFile(path, fileLines));
  }
  const body = {
    version: AGENT_TRACE_VERSION,
    timestamp: info.ts,
    vcs: { type: 'git', revision: info.commit },
    tool: { ...TOOL },
    files,
    metadata: { 'dev.tracer': { parents: [...info.parents], lines, ...extras } },
  };
  const { version, ...rest } = body;
  const record = { version, id: contentUuid(body), ...rest };
  return withContentId({ sha: '', ts: info.ts, commit: info.commit, trace_ids: [...traceIds].sort(compare), record }, 'sha');
}

/** The git note of a ledger: its record, exactly as the ledger line spells it. */
export function noteText(ledger: Ledger): string {
  return `${JSON.stringify(ledger.record)}\n`;
}

export function buildCommitLink(
  ledger: Ledger,
  attribution: Attribution,
  rewrittenFrom?: string,
  info?: CommitInfo,
  kept: KeptSubject = {},
): CommitLink {
  const sessions = new Set<string>();
  for (const lines of attribution.files.values())
    for (const line of lines) if (line.trace?.conversation_id !== undefined) sessions.add(line.trace.conversation_id);
  return commitLinkRecord(ledger, [...sessions].sort(compare), rewrittenFrom, info, kept);
}

/**
 * The commit link of a ledger (the post-commit hook's, and reconcile's): its
 * conversations, traces and ledger, and the commit's author name and committed
 * time as git gave them with the commit (no process of its own). The subject is
 * `kept`'s, never `info`'s: only a subject that went through capture's redaction
 * (link-subject.ts) may be stored. Deterministic like the ledger: the same
 * commit gives the same bytes anywhere (a secret aside, whose placeholder is the
 * store's own).
 */
export function commitLinkRecord(
  ledger: Ledger,
  sessionIds: string[],
  rewrittenFrom?: string,
  info?: CommitInfo,
  kept: KeptSubject = {},
): CommitLink {
  return withContentId(
    {
      id: '',
      ts: ledger.ts,
      commit: ledger.commit,
      session_ids: sessionIds,
      trace_ids: ledger.trace_ids,
      ledger_sha: ledger.sha,
      ...(rewrittenFrom === undefined ? {} : { rewritten_from: rewrittenFrom }),
      ...(kept.subject === undefined ? {} : { subject: kept.subject }),
      ...(info?.authorName === undefined ? {} : { author_name: info.authorName }),
      ...(info === undefined ? {} : { committed_at: info.ts }),
      ...kept.mark,
    },
    'id',
  );
}

/**
 * Ranges of consecutive lines with one author, grouped by conversation (and
 * model), a person's lines last. Blank lines between two lines of one group
 * stay inside its range; elsewhere they belong to no range.
 */
function recordFile(path: string, attributed: readonly RecordLine[]): RecordFile {
  const groups = new Map<string, RangeGroup>();
  let open: { key: string; group: RangeGroup; lines: RecordLine[] } | undefined;
  let blanks: RecordLine[] = [];
  const close = () => {
    if (open) open.group.ranges.push(range(open.lines));
    open = undefined;
  };
  for (const line of attributed) {
    if (line.blank) {
      blanks.push(line);
      continue;
    }
    const key = line.author?.key ?? HUMAN;
    let group = groups.get(key);
    if (!group) {
      group = { conversation: line.author?.conversation ?? { contributor: { type: 'human' } }, traces: new Set(), ranges: [] };
      groups.set(key, group);
    }
    for (const id of line.author?.traceIds ?? []) group.traces.add(id);
    const bridge = [...blanks, line];
    const contiguous =
      open !== undefined &&
      bridge.every((next, index) => next.line === (index === 0 ? open!.lines.at(-1)!.line : bridge[index - 1]!.line) + 1);
    if (open?.key === key && contiguous) open.lines.push(...bridge);
    else {
      close();
      open = { key, group, lines: [line] };
    }
    blanks = [];
  }
  close();
  const conversations: RecordConversation[] = [];
  for (const key of [...groups.keys()].sort(compareGroups)) {
    const group = groups.get(key)!;
    const related = [...group.traces].sort(compare).map((id) => ({ type: TRACE_RELATION, url: traceUrl(id) }));
    conversations.push({ ...group.conversation, ranges: group.ranges, ...(related.length > 0 ? { related } : {}) });
  }
  return { path, conversations };
}

/** `tracer://trace/<id>`: a trace named as a URI, as Agent Trace's `related` wants. */
export function traceUrl(id: string): string {
  return `tracer://trace/${encodeURIComponent(id)}`;
}

interface RangeGroup {
  conversation: Omit<RecordConversation, 'ranges'>;
  traces: Set<string>;
  ranges: RecordRange[];
}

function range(lines: readonly RecordLine[]): RecordRange {
  return {
    start_line: lines[0]!.line,
    end_line: lines.at(-1)!.line,
    content_hash: contentHash(lines.map((line) => line.text)),
  };
}

/** Agent Trace's `content_hash` of a range, as docs/attribution.md defines it: the lines without their ends, joined with "\n". */
export function contentHash(lines: readonly string[]): string {
  return `sha256:${sha256Hex(lines.join('\n'))}`;
}

const HUMAN = '\u0001human';

/** A line as the post-commit hook attributed it: a trace's line is that trace's conversation's. */
function recordLineOf(attributed: AttributedLine): RecordLine {
  const { trace, ...line } = attributed;
  if (!trace) return line;
  const key = [trace.agent, trace.conversation_id ?? '', trace.model === undefined ? '' : modelsDevId(trace.model)].join('\u0000');
  return { ...line, author: { key, conversation: conversationOf(trace), traceIds: [trace.id] } };
}

/** AI conversations in key order, then the person's lines. */
function compareGroups(a: string, b: string): number {
  if (a === HUMAN || b === HUMAN) return a === b ? 0 : a === HUMAN ? 1 : -1;
  return compare(a, b);
}

function conversationOf(trace: WindowTrace): Omit<RecordConversation, 'ranges' | 'related'> {
  const url = trace.conversation_id !== undefined && isAgent(trace.agent) ? conversationUrl(trace.agent, trace.conversation_id) : undefined;
  return {
    ...(url === undefined ? {} : { url }),
    contributor: { type: 'ai', ...(trace.model === undefined ? {} : { model_id: modelsDevId(trace.model) }) },
  };
}

function isAgent(agent: string): boolean {
  return AGENT_ID.test(agent);
}

/** A version-8 UUID from the SHA-256 of the canonical body: stable, unlike a random one. */
function contentUuid(body: Record<string, unknown>): string {
  const hex = sha256Hex(canonicalJson(body)).slice(0, 32).split('');
  hex[12] = '8';
  hex[16] = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}
