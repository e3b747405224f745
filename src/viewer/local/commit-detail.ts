// The commit page: the newest ledger of the commit (reread whole by its byte
// span), its files and ranges by contributor, the sessions behind them with
// their summaries, and git's diff with each added line an agent wrote marked
// with its conversation.
import { ExitCode, TracerError } from '../../core/errors.js';
import type { CommitConversation, CommitDetail, CommitFile, DiffFile, RangeByContributor } from '../data-source.js';
import { commitDiff, commitHeaders, resolveCommit } from './git-read.js';
import { recoveredRanges } from '../../capture/ledger/ledger-line.js';
import { agentTraceRecord, contributorKind, parseConversationUrl } from './ledger-read.js';
import { isObject, readSpans, str } from './refreshing-file.js';
import type { ProjectState } from './store-source.js';

export async function commitDetail(state: ProjectState, requested: string): Promise<CommitDetail> {
  if (!/^[0-9a-f]{4,64}$/i.test(requested)) throw unknownCommit(requested);
  const wanted = requested.toLowerCase();
  const repo = state.project.repoPath;
  // A full sha the ledgers name needs no git; a prefix or a commit without a ledger asks git.
  let aggregate = state.ledgers.commits.get(wanted);
  if (!aggregate) {
    const full = (await resolveCommit(repo, wanted, state.env)) ?? [...state.ledgers.commits.keys()].find((sha) => sha.startsWith(wanted));
    aggregate = full === undefined ? undefined : state.ledgers.commits.get(full);
    if (!aggregate && full === undefined) throw unknownCommit(requested);
    if (!aggregate) return withGit(state, full!, emptyDetail(full!));
  }
  const [line] = await readSpans(state.ledgers.ledgers.path, [aggregate.span]);
  const record = isObject(line) ? agentTraceRecord(line) : {};
  const files = ledgerFiles(record, (id) => state.ledgers.summaryOf(id));
  const detail: CommitDetail = {
    ...emptyDetail(aggregate.sha),
    ts: aggregate.ts,
    lines: aggregate.lines,
    has_ledger: true,
    files,
    sessions: ledgerSessions(files),
  };
  return withGit(state, aggregate.sha, detail);
}

async function withGit(state: ProjectState, sha: string, detail: CommitDetail): Promise<CommitDetail> {
  const repo = state.project.repoPath;
  if (repo === null || (await resolveCommit(repo, sha, state.env)) === undefined) return detail;
  const header = (await commitHeaders(repo, [sha], state.env)).get(sha);
  const { files, truncated } = await commitDiff(repo, sha, state.env);
  markAgentLines(files, detail.files);
  return {
    ...detail,
    ts: header?.ts || detail.ts,
    subject: header?.subject ?? null,
    body: header?.body || null,
    author: header?.author ?? null,
    parents: header?.parents ?? [],
    diff: files,
    diff_truncated: truncated,
  };
}

/** The files and ranges by contributor of a ledger's record, with each conversation's summary (the team view reads them the same way). */
export function ledgerFiles(record: Record<string, unknown>, summaryOf: (conversationId: string) => string | null): CommitFile[] {
  const recovered = recoveredByPath(record);
  return (Array.isArray(record.files) ? record.files.filter(isObject) : []).map((file) => ledgerFile(file, summaryOf, recovered));
}

/** The ranges reconcile re-attached by content hash, by path, as the viewer's ranges. */
function recoveredByPath(record: Record<string, unknown>): Map<string, RangeByContributor[]> {
  const byPath = new Map<string, RangeByContributor[]>();
  for (const [path, ranges] of recoveredRanges(record))
    byPath.set(
      path,
      ranges.map(([start_line, end_line]) => ({ start_line, end_line })),
    );
  return byPath;
}

/** The sessions a ledger's files name, once each. */
export function ledgerSessions(files: readonly CommitFile[]): CommitDetail['sessions'] {
  const sessions = new Map<string, CommitDetail['sessions'][number]>();
  for (const file of files)
    for (const conversation of file.conversations)
      if (conversation.conversation_id !== null)
        sessions.set(conversation.conversation_id, {
          conversation_id: conversation.conversation_id,
          agent: conversation.agent,
          summary: conversation.summary,
        });
  return [...sessions.values()];
}

function ledgerFile(
  file: Record<string, unknown>,
  summaryOf: (conversationId: string) => string | null,
  recovered: ReadonlyMap<string, RangeByContributor[]>,
): CommitFile {
  const conversations = (Array.isArray(file.conversations) ? file.conversations.filter(isObject) : []).map(
    (conversation): CommitConversation => {
      const url = str(conversation.url) ?? null;
      const parsed = parseConversationUrl(url ?? undefined);
      const contributor = isObject(conversation.contributor) ? conversation.contributor : {};
      return {
        type: contributorKind(contributor) ?? 'human',
        url,
        agent: parsed?.agent ?? null,
        conversation_id: parsed?.conversationId ?? null,
        model_id: str(contributor.model_id) ?? null,
        summary: parsed ? summaryOf(parsed.conversationId) : null,
        ranges: (Array.isArray(conversation.ranges) ? conversation.ranges.filter(isObject) : []).flatMap((range) =>
          Number.isInteger(range.start_line) && Number.isInteger(range.end_line)
            ? [{ start_line: range.start_line as number, end_line: range.end_line as number }]
            : [],
        ),
      };
    },
  );
  const path = str(file.path) ?? '?';
  return { path, type: contributorKind(file.contributor) ?? null, conversations, recovered: recovered.get(path) ?? [] };
}

/** Sets `ai` (the conversation id, or the agent) on each added line inside an agent's range of that file, and `recovered` on those reconcile re-attached by content hash. */
function markAgentLines(diff: DiffFile[], files: CommitFile[]): void {
  const byPath = new Map(files.map((file) => [file.path, file]));
  for (const file of diff) {
    const ledger = byPath.get(file.path);
    if (!ledger) continue;
    const agentRanges = ledger.conversations
      .filter((conversation) => conversation.type === 'ai')
      .flatMap((conversation) =>
        conversation.ranges.map((range) => ({ ...range, who: conversation.conversation_id ?? conversation.agent ?? 'ai' })),
      );
    for (const hunk of file.hunks)
      for (const line of hunk.lines) {
        if (line.op !== '+' || line.new === null) continue;
        const inside = (candidate: RangeByContributor) => line.new! >= candidate.start_line && line.new! <= candidate.end_line;
        const range = agentRanges.find(inside);
        if (!range) continue;
        line.ai = range.who;
        if (ledger.recovered.some(inside)) line.recovered = true;
      }
  }
}

export function emptyDetail(sha: string): CommitDetail {
  return {
    sha,
    ts: null,
    subject: null,
    body: null,
    author: null,
    parents: [],
    lines: { ai: 0, human: 0, mixed: 0 },
    has_ledger: false,
    files: [],
    sessions: [],
    diff: null,
    diff_truncated: false,
  };
}

function unknownCommit(sha: string): TracerError {
  return new TracerError('unknown_commit', `No commit ${sha} in this project's ledgers or repository.`, { exitCode: ExitCode.usage });
}
