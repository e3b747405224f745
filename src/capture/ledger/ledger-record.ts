import { canonicalJson, sha256Hex, withContentId } from '../../core/content-id.js';
import { conversationUrl } from '../hook/summary.js';
import { AGENTS, type AgentName } from '../hook/hook-event.js';
import { compare, type Attribution, type AttributedLine } from './attribute.js';
import type { CommitInfo } from './commit-diff.js';

/**
 * A ledger: one commit's attribution, shaped as an Agent Trace record
 * (https://agent-trace.dev: version, id, timestamp, vcs, tool, files[].conversations[].ranges[])
 * plus the wire members `sha` (content id), `ts`, `commit` and `trace_ids`.
 *
 * Everything in it derives from the commit and the traces: no clock, no host, no
 * absolute path, no random id, and every list sorted. The same commit and traces
 * therefore give the same bytes, and the same `sha`, on every machine.
 */
export const AGENT_TRACE_VERSION = '0.1';
export const LEDGERS_FILE = 'ledgers.jsonl';
export const COMMIT_LINKS_FILE = 'commit-links.jsonl';

export type ContributorType = 'ai' | 'human' | 'mixed';

export interface Contributor {
  type: ContributorType;
  model_id?: string;
}

export interface LedgerRange {
  start_line: number;
  end_line: number;
  /** `sha256:` + hex SHA-256 of the range's lines joined with "\n". */
  content_hash: string;
  contributor: Contributor;
}

export interface LedgerConversation {
  url?: string;
  contributor: Contributor;
  ranges: LedgerRange[];
  /** The traces whose lines these ranges are (absent for a person's lines). */
  trace_ids?: string[];
}

export interface LedgerFile {
  path: string;
  /** `ai` or `human` when one kind wrote every attributed line, `mixed` otherwise. */
  contributor: { type: ContributorType };
  conversations: LedgerConversation[];
}

export interface Ledger {
  sha: string;
  version: string;
  /** A UUID derived from the content (RFC 9562 version 8), for Agent Trace readers that want one. */
  id: string;
  timestamp: string;
  ts: string;
  commit: string;
  vcs: { type: 'git'; revision: string };
  tool: { name: 'tracer' };
  trace_ids: string[];
  files: LedgerFile[];
  metadata: { 'dev.tracer': { parents: string[]; lines: { ai: number; human: number } } };
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
  [member: string]: unknown;
}

export function buildLedger(info: CommitInfo, attribution: Attribution): Ledger {
  const files: LedgerFile[] = [];
  const traceIds = new Set<string>();
  const lines = { ai: 0, human: 0 };
  for (const [path, attributed] of [...attribution.files].sort(([a], [b]) => compare(a, b))) {
    for (const line of attributed) {
      if (line.blank) continue;
      if (line.trace) traceIds.add(line.trace.id);
      lines[line.trace ? 'ai' : 'human'] += 1;
    }
    files.push(ledgerFile(path, attributed));
  }
  const body = {
    version: AGENT_TRACE_VERSION,
    timestamp: info.ts,
    ts: info.ts,
    commit: info.commit,
    vcs: { type: 'git' as const, revision: info.commit },
    tool: { name: 'tracer' as const },
    trace_ids: [...traceIds].sort(compare),
    files,
    metadata: { 'dev.tracer': { parents: [...info.parents], lines } },
  };
  return withContentId({ sha: '', id: contentUuid(body), ...body }, 'sha');
}

export function buildCommitLink(ledger: Ledger, attribution: Attribution, rewrittenFrom?: string): CommitLink {
  const sessions = new Set<string>();
  for (const lines of attribution.files.values())
    for (const line of lines) if (line.trace?.conversation_id !== undefined) sessions.add(line.trace.conversation_id);
  return withContentId(
    {
      id: '',
      ts: ledger.ts,
      commit: ledger.commit,
      session_ids: [...sessions].sort(compare),
      trace_ids: ledger.trace_ids,
      ledger_sha: ledger.sha,
      ...(rewrittenFrom === undefined ? {} : { rewritten_from: rewrittenFrom }),
    },
    'id',
  );
}

/**
 * Ranges of consecutive lines with one author, grouped by conversation (and
 * model), a person's lines last. Blank lines between two lines of one group
 * stay inside its range; elsewhere they belong to no range.
 */
function ledgerFile(path: string, attributed: readonly AttributedLine[]): LedgerFile {
  const groups = new Map<string, RangeGroup>();
  let open: { key: string; group: RangeGroup; lines: AttributedLine[] } | undefined;
  let blanks: AttributedLine[] = [];
  const close = () => {
    if (open) open.group.ranges.push(range(open.lines, open.group.conversation.contributor));
    open = undefined;
  };
  for (const line of attributed) {
    if (line.blank) {
      blanks.push(line);
      continue;
    }
    const key = groupKey(line);
    let group = groups.get(key);
    if (!group) {
      group = { conversation: conversationOf(line), traces: new Set(), ranges: [] };
      groups.set(key, group);
    }
    if (line.trace) group.traces.add(line.trace.id);
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
  const conversations: LedgerConversation[] = [];
  for (const key of [...groups.keys()].sort(compareGroups)) {
    const group = groups.get(key)!;
    conversations.push({
      ...group.conversation,
      ranges: group.ranges,
      ...(group.traces.size > 0 ? { trace_ids: [...group.traces].sort(compare) } : {}),
    });
  }
  const kinds = new Set(attributed.filter((line) => !line.blank).map((line) => (line.trace ? 'ai' : 'human')));
  return { path, contributor: { type: kinds.size > 1 ? 'mixed' : kinds.has('ai') ? 'ai' : 'human' }, conversations };
}

interface RangeGroup {
  conversation: Omit<LedgerConversation, 'ranges'>;
  traces: Set<string>;
  ranges: LedgerRange[];
}

function range(lines: readonly AttributedLine[], contributor: Contributor): LedgerRange {
  return {
    start_line: lines[0]!.line,
    end_line: lines.at(-1)!.line,
    content_hash: `sha256:${sha256Hex(lines.map((line) => line.text).join('\n'))}`,
    contributor,
  };
}

const HUMAN = '\u0001human';

function groupKey(line: AttributedLine): string {
  const trace = line.trace;
  if (!trace) return HUMAN;
  return [trace.agent, trace.conversation_id ?? '', trace.model ?? ''].join('\u0000');
}

/** AI conversations in key order, then the person's lines. */
function compareGroups(a: string, b: string): number {
  if (a === HUMAN || b === HUMAN) return a === b ? 0 : a === HUMAN ? 1 : -1;
  return compare(a, b);
}

function conversationOf(line: AttributedLine): Omit<LedgerConversation, 'ranges'> {
  const trace = line.trace;
  if (!trace) return { contributor: { type: 'human' } };
  const url = trace.conversation_id !== undefined && isAgent(trace.agent) ? conversationUrl(trace.agent, trace.conversation_id) : undefined;
  return {
    ...(url === undefined ? {} : { url }),
    contributor: { type: 'ai', ...(trace.model === undefined ? {} : { model_id: trace.model }) },
  };
}

function isAgent(agent: string): agent is AgentName {
  return (AGENTS as readonly string[]).includes(agent);
}

/** A version-8 UUID from the SHA-256 of the canonical body: stable, unlike a random one. */
function contentUuid(body: Record<string, unknown>): string {
  const hex = sha256Hex(canonicalJson(body)).slice(0, 32).split('');
  hex[12] = '8';
  hex[16] = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}
