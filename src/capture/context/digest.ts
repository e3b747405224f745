// `tracer context`: what an agent starting work should know about this project,
// from local files only: the latest sessions (from traces.jsonl), their latest
// summaries, and how the last commits were attributed (from ledgers.jsonl). The
// ledger shape belongs to the ledger writer; this reads it tolerantly and skips
// what it does not understand.
import { join } from 'node:path';
import type { TracerWarning } from '../../core/errors.js';
import { readRecords } from '../../store/jsonl.js';
import { conversationUrl, SUMMARIES_FILE } from '../hook/summary.js';
import { AGENT_ID } from '../hook/hook-event.js';
import { TRACES_FILE } from '../hook/trace-row.js';
import { ledgerCommitOf, ledgerRecordOf } from '../ledger/ledger-line.js';

export const LEDGERS_FILE = 'ledgers.jsonl';
export const COMMIT_LINKS_FILE = 'commit-links.jsonl';

export interface SessionDigest {
  agent: string;
  conversation_id: string;
  conversation_url?: string;
  first_ts: string;
  last_ts: string;
  events: number;
  /** Repository-relative paths the agent wrote, in first-written order. */
  files: string[];
  summary?: string;
}

export interface CommitDigest {
  commit: string;
  ts?: string;
  /** Non-blank added lines per contributor type. */
  lines: ContributorCounts;
  /** Files of the commit per contributor type (`mixed`: agent and person lines in one file). */
  files: ContributorCounts;
}

export interface ContributorCounts {
  ai: number;
  human: number;
  mixed: number;
}

export interface ContextDigest {
  project_id: string;
  sessions: SessionDigest[];
  commits: CommitDigest[];
}

export async function buildDigest(
  project: { id: string; dir: string },
  limit: number,
  warn: (warning: TracerWarning) => void,
): Promise<ContextDigest> {
  const onCorrupt = (line: { path: string; line: number }) =>
    warn({ code: 'unreadable_line', message: `${line.path} line ${line.line} is not valid JSON; it is skipped.` });
  const sessions = await recentSessions(join(project.dir, TRACES_FILE), limit, onCorrupt);
  const summaries = await latestSummaries(join(project.dir, SUMMARIES_FILE), onCorrupt);
  for (const session of sessions) {
    const summary = session.conversation_url === undefined ? undefined : summaries.get(session.conversation_url);
    if (summary !== undefined) session.summary = summary;
  }
  const replaced = await rewrittenCommits(join(project.dir, COMMIT_LINKS_FILE), onCorrupt);
  const commits = await recentCommits(join(project.dir, LEDGERS_FILE), limit, replaced, onCorrupt);
  return { project_id: project.id, sessions, commits };
}

type OnCorrupt = (line: { path: string; line: number }) => void;

async function recentSessions(path: string, limit: number, onCorrupt: OnCorrupt): Promise<SessionDigest[]> {
  const sessions = new Map<string, SessionDigest & { fileSet: Set<string> }>();
  for await (const row of readRecords<Record<string, unknown>>(path, { onCorrupt })) {
    if (!isObject(row) || typeof row.conversation_id !== 'string' || typeof row.ts !== 'string') continue;
    const agent = typeof row.agent === 'string' ? row.agent : 'unknown';
    const key = `${agent}\u0000${row.conversation_id}`;
    let session = sessions.get(key);
    if (!session) {
      session = {
        agent,
        conversation_id: row.conversation_id,
        first_ts: row.ts,
        last_ts: row.ts,
        events: 0,
        files: [],
        fileSet: new Set(),
      };
      if (isAgent(agent)) session.conversation_url = conversationUrl(agent, row.conversation_id);
      sessions.set(key, session);
    }
    session.events += 1;
    if (row.ts < session.first_ts) session.first_ts = row.ts;
    if (row.ts > session.last_ts) session.last_ts = row.ts;
    for (const file of Array.isArray(row.files) ? row.files : []) {
      if (isObject(file) && typeof file.path === 'string' && !session.fileSet.has(file.path)) {
        session.fileSet.add(file.path);
        session.files.push(file.path);
      }
    }
  }
  return [...sessions.values()]
    .sort((a, b) => (a.last_ts < b.last_ts ? 1 : a.last_ts > b.last_ts ? -1 : 0))
    .slice(0, limit)
    .map(({ fileSet: _set, ...session }) => session);
}

/** The summary with the latest ts per conversation_url (file order breaks ties). */
async function latestSummaries(path: string, onCorrupt: OnCorrupt): Promise<Map<string, string>> {
  const latest = new Map<string, { ts: string; summary: string }>();
  for await (const row of readRecords<Record<string, unknown>>(path, { onCorrupt })) {
    if (!isObject(row) || typeof row.conversation_url !== 'string' || typeof row.summary !== 'string') continue;
    const ts = typeof row.ts === 'string' ? row.ts : '';
    const current = latest.get(row.conversation_url);
    if (!current || ts >= current.ts) latest.set(row.conversation_url, { ts, summary: row.summary });
  }
  return new Map([...latest].map(([url, { summary }]) => [url, summary]));
}

/** Commits an amend or a rebase replaced: their ledgers stay in the file but describe no current commit. */
async function rewrittenCommits(path: string, onCorrupt: OnCorrupt): Promise<Set<string>> {
  const replaced = new Set<string>();
  for await (const row of readRecords<Record<string, unknown>>(path, { onCorrupt })) {
    if (isObject(row) && typeof row.rewritten_from === 'string') replaced.add(row.rewritten_from);
  }
  return replaced;
}

/** The newest ledger of each commit still current, newest commits first. */
async function recentCommits(path: string, limit: number, replaced: ReadonlySet<string>, onCorrupt: OnCorrupt): Promise<CommitDigest[]> {
  const byCommit = new Map<string, CommitDigest & { order: number }>();
  let order = 0;
  for await (const row of readRecords<Record<string, unknown>>(path, { onCorrupt })) {
    order += 1;
    const record = ledgerRecordOf(row) as Record<string, unknown> | undefined;
    const commit = ledgerCommitOf(row);
    if (!isObject(row) || record === undefined || commit === undefined || replaced.has(commit)) continue;
    const ts = typeof row.ts === 'string' ? row.ts : typeof record.timestamp === 'string' ? record.timestamp : undefined;
    const files = Array.isArray(record.files) ? (record.files as unknown[]) : [];
    byCommit.set(commit, { commit, ts, lines: lineCounts(record, files), files: fileCounts(files), order });
  }
  return [...byCommit.values()]
    .sort((a, b) => compareNewestFirst(a.ts, b.ts) || b.order - a.order)
    .slice(0, limit)
    .map(({ order: _order, ...commit }) => (commit.ts === undefined ? withoutTs(commit) : commit));
}

/**
 * The ledger writer's own totals (`metadata["dev.tracer"].lines`, blank lines not
 * counted) when present; else the lines of every range, by its contributor type.
 */
function lineCounts(ledger: Record<string, unknown>, files: unknown[]): ContributorCounts {
  const metadata = isObject(ledger.metadata) && isObject(ledger.metadata['dev.tracer']) ? ledger.metadata['dev.tracer'] : {};
  const totals = isObject(metadata.lines) ? metadata.lines : undefined;
  if (totals && Number.isInteger(totals.ai) && Number.isInteger(totals.human)) {
    return { ai: totals.ai as number, human: totals.human as number, mixed: Number.isInteger(totals.mixed) ? (totals.mixed as number) : 0 };
  }
  const lines = zero();
  for (const file of files) {
    if (!isObject(file) || !Array.isArray(file.conversations)) continue;
    for (const conversation of file.conversations) {
      if (!isObject(conversation) || !Array.isArray(conversation.ranges)) continue;
      for (const range of conversation.ranges) {
        const type = contributorType(isObject(range) && isObject(range.contributor) ? range.contributor : conversation.contributor);
        if (!type || !isObject(range) || !Number.isInteger(range.start_line) || !Number.isInteger(range.end_line)) continue;
        lines[type] += Math.max(0, (range.end_line as number) - (range.start_line as number) + 1);
      }
    }
  }
  return lines;
}

/** Old ledgers give each file a contributor; Agent Trace records leave it to the file's conversations. */
function fileCounts(files: unknown[]): ContributorCounts {
  const counts = zero();
  for (const file of files) {
    if (!isObject(file)) continue;
    const type = contributorType(file.contributor) ?? kindOfConversations(file.conversations);
    if (type) counts[type] += 1;
  }
  return counts;
}

function kindOfConversations(conversations: unknown): keyof ContributorCounts | undefined {
  const kinds = new Set<keyof ContributorCounts>();
  for (const conversation of Array.isArray(conversations) ? conversations : []) {
    const type = isObject(conversation) ? contributorType(conversation.contributor) : undefined;
    if (type) kinds.add(type);
  }
  return kinds.size > 1 ? 'mixed' : [...kinds][0];
}

function contributorType(contributor: unknown): keyof ContributorCounts | undefined {
  const type = isObject(contributor) ? contributor.type : undefined;
  return type === 'ai' || type === 'human' || type === 'mixed' ? type : undefined;
}

function zero(): ContributorCounts {
  return { ai: 0, human: 0, mixed: 0 };
}

function compareNewestFirst(a: string | undefined, b: string | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return 1;
  if (b === undefined) return -1;
  return a < b ? 1 : -1;
}

function withoutTs({ ts: _ts, ...commit }: CommitDigest): CommitDigest {
  return commit;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isAgent(agent: string): boolean {
  return AGENT_ID.test(agent);
}
