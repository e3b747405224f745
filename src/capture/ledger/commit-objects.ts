// Many commits read in one `git cat-file --batch`: whether this clone has them,
// and each one's parents, committer time, author and message. Reconcile needs
// all of that for every ledgered commit and every commit that arrived; asked
// with `log` and `cat-file --batch-check`, it was three processes, and on a
// 2-core laptop each git process a hook starts costs ~10 ms before git runs.
import type { CommitInfo } from './commit-diff.js';
import { runGitBytes, type GitOptions } from './git-exec.js';

export interface CommitObject {
  info: CommitInfo;
  /** Author name, email and time (`Name <email> 1700000000`): what a rebase and a cherry-pick keep. */
  author: string;
  /** The raw message, subject first. */
  message: string;
}

/**
 * The commits among `names` (object ids, or any name git resolves, such as
 * `refs/notes/tracer^{commit}`), keyed by the name asked. A name this clone
 * cannot resolve to a commit is absent.
 */
export async function readCommitObjects(names: readonly string[], git: GitOptions): Promise<Map<string, CommitObject>> {
  const found = new Map<string, CommitObject>();
  if (names.length === 0) return found;
  const out = await runGitBytes(['cat-file', '--batch'], { ...git, input: `${names.join('\n')}\n` });
  let offset = 0;
  for (const name of names) {
    const end = out.indexOf(0x0a, offset);
    if (end === -1) break;
    // "<id> <type> <size>", then that many bytes and a newline; or "<name> missing" (or "ambiguous") alone.
    const [id = '', type = '', size = ''] = out.toString('utf8', offset, end).split(' ');
    offset = end + 1;
    if (!/^\d+$/.test(size)) continue;
    const body = out.toString('utf8', offset, offset + Number(size));
    offset += Number(size) + 1;
    if (type === 'commit') found.set(name, parseCommit(id, body));
  }
  return found;
}

/** A commit object: header lines (a line starting with a space continues the one before, as in a signature), a blank line, the message. */
function parseCommit(commit: string, body: string): CommitObject {
  const split = body.indexOf('\n\n');
  const headers = split === -1 ? body : body.slice(0, split);
  const parents: string[] = [];
  let author = '';
  let committed = 0;
  for (const line of headers.split('\n')) {
    const space = line.indexOf(' ');
    const key = line.slice(0, space);
    const value = line.slice(space + 1);
    if (key === 'parent') parents.push(value);
    else if (key === 'author') author = withoutZone(value);
    else if (key === 'committer') committed = Number(/ (\d+) [+-]\d{4}$/.exec(value)?.[1] ?? 0);
  }
  const message = split === -1 ? '' : body.slice(split + 2);
  return {
    info: { commit, parents, ts: new Date(committed * 1000).toISOString(), subject: subjectOf(message), authorName: nameOf(author) },
    author,
    message,
  };
}

/** What git's %s prints: the message's first paragraph, its lines joined with spaces. */
export function subjectOf(message: string): string {
  const lines: string[] = [];
  for (const line of message.replace(/^\n+/, '').split('\n')) {
    if (line.trim() === '') break;
    lines.push(line.trim());
  }
  return lines.join(' ');
}

/** "Name <email> 1700000000" → "Name". */
function nameOf(ident: string): string {
  const open = ident.lastIndexOf(' <');
  return open === -1 ? '' : ident.slice(0, open);
}

/** "Name <email> 1700000000 +0200" → "Name <email> 1700000000". */
function withoutZone(ident: string): string {
  return ident.replace(/ [+-]\d{4}$/, '');
}
