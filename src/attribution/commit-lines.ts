// How many lines each kind of contributor added in a commit. git counts the
// lines (`--numstat`, renames detected, so a renamed or moved file adds only
// the lines that changed); the commit's ledger says whose they are. A line
// the ledger covers with no range is a person's; every line of a commit with
// no ledger is `unknown`. A merge has no diff of its own here: its ledger's
// ranges are what it added (conflict resolutions), and without a ledger it
// counts nothing, the merged commits count their own lines.
import { runGit, type GitOptions } from '../capture/ledger/git-exec.js';
import { type ConversationView, type LedgerView, type LineType } from './ledger-view.js';

export interface LineCounts {
  ai: number;
  human: number;
  mixed: number;
  unknown: number;
}

export interface ConversationLines {
  conversation: ConversationView;
  lines: number;
}

export interface CommitLines {
  commit: string;
  parents: string[];
  author: string;
  subject: string;
  ledger: LedgerView | undefined;
  lines: LineCounts;
  files: Map<string, LineCounts>;
  /** Agent or mixed conversations and the lines each added. */
  conversations: ConversationLines[];
}

export interface CommitDiff {
  commit: string;
  parents: string[];
  author: string;
  subject: string;
  /** path (new side) → lines added; undefined for a merge. */
  added: Map<string, number> | undefined;
}

export const zeroCounts = (): LineCounts => ({ ai: 0, human: 0, mixed: 0, unknown: 0 });

export function addCounts(into: LineCounts, more: LineCounts): void {
  into.ai += more.ai;
  into.human += more.human;
  into.mixed += more.mixed;
  into.unknown += more.unknown;
}

export function tallyCommit(diff: CommitDiff, ledger: LedgerView | undefined): CommitLines {
  const files = new Map<string, LineCounts>();
  // One entry a conversation, whatever number of files it wrote: a ledger's files each hold their own view of it.
  const conversations = new Map<string, { conversation: ConversationView; lines: number }>();
  const paths = diff.added ? [...diff.added.keys()] : ledger ? [...ledger.files.keys()] : [];
  for (const path of paths) {
    const added = diff.added?.get(path);
    const counts = zeroCounts();
    if (!ledger) counts.unknown = added ?? 0;
    else tallyFile(ledger, path, added, counts, conversations);
    if (counts.ai + counts.human + counts.mixed + counts.unknown > 0) files.set(path, counts);
  }
  const lines = zeroCounts();
  for (const counts of files.values()) addCounts(lines, counts);
  return {
    commit: diff.commit,
    parents: diff.parents,
    author: diff.author,
    subject: diff.subject,
    ledger,
    lines,
    files,
    conversations: [...conversations.values()],
  };
}

/**
 * The covered lines of one file by contributor; with git's count of added
 * lines as the ceiling (a ledger written without rename detection covers a
 * renamed file whole), agents' lines first, the rest a person's.
 */
function tallyFile(
  ledger: LedgerView,
  path: string,
  added: number | undefined,
  counts: LineCounts,
  conversations: Map<string, { conversation: ConversationView; lines: number }>,
): void {
  const byLine = new Map<number, ConversationView>();
  for (const range of ledger.files.get(path) ?? []) {
    for (let line = range.start; line <= range.end; line += 1) {
      const before = byLine.get(line);
      byLine.set(line, before && before.type !== range.conversation.type ? { ...before, type: 'mixed' } : range.conversation);
    }
  }
  const covered = new Map<ConversationView, number>();
  for (const conversation of byLine.values()) covered.set(conversation, (covered.get(conversation) ?? 0) + 1);
  let left = added ?? Infinity;
  for (const type of ['ai', 'mixed', 'unknown', 'human'] as const satisfies readonly LineType[]) {
    for (const [conversation, count] of covered) {
      if (conversation.type !== type) continue;
      const taken = Math.min(count, left);
      left -= taken;
      counts[type] += taken;
      if ((type === 'ai' || type === 'mixed') && taken > 0) {
        const key = `${conversation.url ?? ''}\0${conversation.agent ?? ''}\0${conversation.model_id ?? ''}\0${conversation.type}`;
        const entry = conversations.get(key);
        if (entry) entry.lines += taken;
        else conversations.set(key, { conversation, lines: taken });
      }
    }
  }
  if (added !== undefined) counts.human += left;
}

/**
 * Commits of a range, newest first, with the lines each added per file: one
 * `git log` for the whole range. Throws GitCommandError when git refuses it.
 */
export async function readCommitDiffs(revisions: readonly string[], git: GitOptions, limit?: number): Promise<CommitDiff[]> {
  const out = await runGit(
    [
      '-c',
      'core.quotePath=false',
      'log',
      '-z',
      ...NUMSTAT_ARGS.diff,
      NUMSTAT_ARGS.format,
      ...(limit === undefined ? [] : [`--max-count=${limit}`]),
      '--end-of-options',
      ...revisions,
      '--',
    ],
    git,
  );
  return parseLog(out);
}

/** How a commit's lines are counted, and the header parseLog reads (commit-diff-cache.ts counts the same way). */
export const NUMSTAT_ARGS = {
  diff: ['--numstat', '--find-renames', '--no-ext-diff', '--no-textconv'],
  format: '--format=%x01%H %P%x02%aN%x02%s',
} as const;

export function parseLog(out: string): CommitDiff[] {
  const commits: CommitDiff[] = [];
  for (const record of out.split('\u0001')) {
    if (record === '') continue;
    const headerEnd = record.indexOf('\u0000');
    const header = headerEnd === -1 ? record : record.slice(0, headerEnd);
    const [ids = '', author = '', subject = ''] = header.split('\u0002');
    const [commit = '', ...parents] = ids.trim().split(' ').filter(Boolean);
    const added = parents.length > 1 ? undefined : new Map<string, number>();
    const tokens =
      headerEnd === -1
        ? []
        : record
            .slice(headerEnd + 1)
            .replace(/^\n/, '')
            .split('\u0000');
    for (let index = 0; index < tokens.length; index += 1) {
      const match = /^(\d+|-)\t(\d+|-)\t(.*)$/s.exec(tokens[index]!);
      if (!match) continue;
      let path = match[3]!;
      // A rename: "<added>\t<deleted>\t" then the old and the new path as tokens of their own.
      if (path === '') {
        path = tokens[index + 2] ?? '';
        index += 2;
      }
      if (added && match[1] !== '-' && path !== '') added.set(path, (added.get(path) ?? 0) + Number(match[1]));
    }
    commits.push({ commit, parents, author, subject, added });
  }
  return commits;
}
