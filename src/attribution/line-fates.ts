// What became of the lines agents wrote: each AI line a commit added is
// followed through the later commits of a first-parent history, hunk by hunk
// (`git log -p --unified=0`, renames detected), until a commit deletes or
// replaces it or the history ends with it still there. A deleted line's fate
// names who deleted it, from the deleting commit's ledger:
// - `same_conversation`: the hunk's new lines are the same conversation's (an
//   agent revising its own work), or a pure deletion in a commit that
//   conversation also wrote in;
// - `other_agent`: the new lines are another conversation's;
// - `person`: the new lines are a person's, or a pure deletion in a commit no
//   agent wrote in;
// - `unknown`: the commit has no ledger, or a pure deletion where another
//   agent also wrote (the person or that agent: nobody can tell), or a merge.
// "Rework" is what a person or another agent deleted. A merge is followed as
// its diff against its first parent; the lines it brings from its branch are
// the branch commits' (blame says which and where), followed from the merge on.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { unquoteC } from '../capture/ledger/diff-parse.js';
import { GitCommandError, type GitOptions } from '../capture/ledger/git-exec.js';
import { runBlame } from './blame-porcelain.js';
import { HUMAN, lineContributor, type ConversationView, type LedgerView } from './ledger-view.js';

export type Deleter = 'person' | 'other_agent' | 'same_conversation' | 'unknown';
export const DELETERS: readonly Deleter[] = ['person', 'other_agent', 'same_conversation', 'unknown'];

export interface LineFate {
  added: number;
  /** Still there where the history ends. */
  alive: number;
  deleted: Record<Deleter, number>;
}

export const zeroFate = (): LineFate => ({ added: 0, alive: 0, deleted: { person: 0, other_agent: 0, same_conversation: 0, unknown: 0 } });

export function addFate(into: LineFate, more: LineFate): void {
  into.added += more.added;
  into.alive += more.alive;
  for (const who of DELETERS) into.deleted[who] += more.deleted[who];
}

/** AI lines a person or another agent deleted. */
export const reworkOf = (fate: LineFate) => fate.deleted.person + fate.deleted.other_agent;

export interface FateQuery {
  git: GitOptions;
  /** For `git log --first-parent`: the history walked, oldest first. */
  revisions: readonly string[];
  /** The commits whose AI lines are followed. */
  scope: ReadonlySet<string>;
  ledgerOf(commit: string): LedgerView | undefined;
}

/** commit that added the lines → conversation URL ('' for none) → their fate. */
export type Fates = Map<string, Map<string, { conversation: ConversationView; fate: LineFate }>>;

interface Tracked {
  line: number;
  commit: string;
  conversation: ConversationView;
}

interface Hunk {
  oldStart: number;
  oldCount: number;
  newStart: number;
  newCount: number;
}

interface FileDiff {
  oldPath: string | undefined;
  newPath: string | undefined;
  hunks: Hunk[];
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

export async function lineFates(query: FateQuery): Promise<Fates> {
  const fates: Fates = new Map();
  const files = new Map<string, Tracked[]>();
  const fateOf = (commit: string, conversation: ConversationView): LineFate => {
    let byUrl = fates.get(commit);
    if (!byUrl) fates.set(commit, (byUrl = new Map()));
    const key = conversation.url ?? '';
    let entry = byUrl.get(key);
    if (!entry) byUrl.set(key, (entry = { conversation, fate: zeroFate() }));
    return entry.fate;
  };

  let commit: { id: string; merge: boolean; ledger: LedgerView | undefined; diffs: FileDiff[] } | undefined;
  const finishCommit = async () => {
    if (!commit) return;
    const current = commit;
    commit = undefined;
    for (const diff of current.diffs) await applyDiff(current, diff);
  };

  const applyDiff = async (current: NonNullable<typeof commit>, diff: FileDiff) => {
    const contributors = await addedContributors(current, diff);
    const before = diff.oldPath === undefined ? [] : (files.get(diff.oldPath) ?? []);
    if (diff.oldPath !== undefined) files.delete(diff.oldPath);
    const after: Tracked[] = [];
    const hunks = [...diff.hunks].sort((a, b) => a.oldStart - b.oldStart);
    let next = 0;
    let shift = 0;
    for (const tracked of before) {
      while (next < hunks.length && endsBefore(hunks[next]!, tracked.line)) {
        shift += hunks[next]!.newCount - hunks[next]!.oldCount;
        next += 1;
      }
      const hunk = hunks[next];
      if (hunk && hunk.oldCount > 0 && hunk.oldStart <= tracked.line) {
        fateOf(tracked.commit, tracked.conversation).deleted[deleterOf(current, hunk, contributors, tracked.conversation)] += 1;
        continue;
      }
      after.push({ ...tracked, line: tracked.line + shift });
    }
    if (diff.newPath !== undefined) {
      for (const [line, found] of contributors) {
        if (found.type !== 'ai' && found.type !== 'mixed') continue;
        if (!query.scope.has(found.commit)) continue;
        after.push({ line, commit: found.commit, conversation: found.conversation });
        fateOf(found.commit, found.conversation).added += 1;
      }
      after.sort((a, b) => a.line - b.line);
      if (after.length > 0) files.set(diff.newPath, after);
    }
  };

  /** Each added line's contributor: the commit's ledger, or for a merge the ledger of the commit blame names. */
  const addedContributors = async (
    current: NonNullable<typeof commit>,
    diff: FileDiff,
  ): Promise<Map<number, { type: string; commit: string; conversation: ConversationView }>> => {
    const found = new Map<number, { type: string; commit: string; conversation: ConversationView }>();
    if (diff.newPath === undefined) return found;
    const added: number[] = [];
    for (const hunk of diff.hunks) for (let line = hunk.newStart; line < hunk.newStart + hunk.newCount; line += 1) added.push(line);
    if (added.length === 0) return found;
    if (!current.merge) {
      for (const line of added) {
        const conversation = current.ledger ? lineContributor(current.ledger, diff.newPath, line) : UNKNOWN;
        found.set(line, { type: conversation.type, commit: current.id, conversation });
      }
      return found;
    }
    const blamed = await runBlame({ cwd: query.git.cwd, env: query.git.env, path: diff.newPath, rev: current.id });
    const wanted = new Set(added);
    for (const line of blamed.lines) {
      if (!wanted.has(line.line)) continue;
      const ledger = line.commit === current.id ? current.ledger : query.ledgerOf(line.commit);
      const conversation = ledger ? lineContributor(ledger, line.origPath, line.origLine) : UNKNOWN;
      found.set(line.line, { type: conversation.type, commit: line.commit, conversation });
    }
    for (const line of added) if (!found.has(line)) found.set(line, { type: 'unknown', commit: current.id, conversation: UNKNOWN });
    return found;
  };

  const deleterOf = (
    current: NonNullable<typeof commit>,
    hunk: Hunk,
    contributors: Map<number, { type: string; conversation: ConversationView }>,
    owner: ConversationView,
  ): Deleter => {
    if (hunk.newCount > 0) {
      const written = [];
      for (let line = hunk.newStart; line < hunk.newStart + hunk.newCount; line += 1) {
        const found = contributors.get(line);
        if (found) written.push(found);
      }
      const agents = written.filter((found) => found.type === 'ai' || found.type === 'mixed');
      if (agents.some((found) => found.conversation.url === owner.url)) return 'same_conversation';
      if (agents.length > 0) return 'other_agent';
      if (written.length > 0 && written.every((found) => found.type === 'human')) return 'person';
      return 'unknown';
    }
    if (current.merge || !current.ledger) return 'unknown';
    const agents = current.ledger.conversations.filter((conversation) => conversation.type === 'ai' || conversation.type === 'mixed');
    if (agents.some((conversation) => conversation.url === owner.url)) return 'same_conversation';
    return agents.length === 0 ? 'person' : 'unknown';
  };

  let diff: FileDiff | undefined;
  let bodyLeft = { old: 0, new: 0 };
  const finishDiff = () => {
    if (diff && commit) commit.diffs.push(diff);
    diff = undefined;
  };
  for await (const line of gitLines(query)) {
    if (bodyLeft.old > 0 || bodyLeft.new > 0) {
      // Counted off the hunk's header: an added line may itself look like a header.
      if (line.startsWith('-')) bodyLeft.old -= 1;
      else if (line.startsWith('+')) bodyLeft.new -= 1;
      else if (!line.startsWith('\\')) bodyLeft = { old: 0, new: 0 };
      continue;
    }
    if (line.startsWith('\u0001')) {
      finishDiff();
      await finishCommit();
      const [id = '', ...parents] = line.slice(1).trim().split(' ');
      commit = { id, merge: parents.length > 1, ledger: query.ledgerOf(id), diffs: [] };
      continue;
    }
    if (line.startsWith('diff --git ')) {
      finishDiff();
      diff = { oldPath: undefined, newPath: undefined, hunks: [] };
      const paths = gitDiffPaths(line.slice('diff --git '.length));
      if (paths) [diff.oldPath, diff.newPath] = paths;
      continue;
    }
    if (!diff) continue;
    if (line.startsWith('rename from ')) diff.oldPath = pathOf(line.slice('rename from '.length));
    else if (line.startsWith('rename to ')) diff.newPath = pathOf(line.slice('rename to '.length));
    else if (line.startsWith('new file mode')) diff.oldPath = undefined;
    else if (line.startsWith('deleted file mode')) diff.newPath = undefined;
    else if (line.startsWith('--- ')) diff.oldPath = sidePath(line.slice(4), 'a/');
    else if (line.startsWith('+++ ')) diff.newPath = sidePath(line.slice(4), 'b/');
    else {
      const hunk = HUNK.exec(line);
      if (!hunk) continue;
      const parsed = {
        oldStart: Number(hunk[1]),
        oldCount: hunk[2] === undefined ? 1 : Number(hunk[2]),
        newStart: Number(hunk[3]),
        newCount: hunk[4] === undefined ? 1 : Number(hunk[4]),
      };
      diff.hunks.push(parsed);
      bodyLeft = { old: parsed.oldCount, new: parsed.newCount };
    }
  }
  finishDiff();
  await finishCommit();
  for (const tracked of files.values()) for (const line of tracked) fateOf(line.commit, line.conversation).alive += 1;
  return fates;
}

const UNKNOWN: ConversationView = Object.freeze({ ...HUMAN, type: 'unknown' as const });

/** Whether a hunk lies wholly before a line of the old file (an insertion after line n lies before n + 1). */
function endsBefore(hunk: Hunk, line: number): boolean {
  return hunk.oldCount > 0 ? hunk.oldStart + hunk.oldCount - 1 < line : hunk.oldStart < line;
}

/** The old and new paths of `a/<old> b/<new>`; the ---/+++ and rename lines, when present, say it again unambiguously. */
function gitDiffPaths(rest: string): [string, string] | undefined {
  if (rest.startsWith('"')) return undefined;
  const middle = rest.indexOf(' b/');
  if (!rest.startsWith('a/') || middle === -1) return undefined;
  const oldPath = rest.slice(2, middle);
  const newPath = rest.slice(middle + 3);
  return oldPath === newPath ? [oldPath, newPath] : undefined;
}

function sidePath(raw: string, prefix: string): string | undefined {
  const name = raw.endsWith('\t') ? raw.slice(0, -1) : raw;
  if (name === '/dev/null') return undefined;
  const unquoted = pathOf(name);
  return unquoted.startsWith(prefix) ? unquoted.slice(prefix.length) : unquoted;
}

function pathOf(raw: string): string {
  return raw.startsWith('"') ? unquoteC(raw) : raw;
}

/** The walked history's patches, line by line as git writes them. */
async function* gitLines(query: FateQuery): AsyncGenerator<string> {
  const args = [
    '-c',
    'core.quotePath=true',
    'log',
    '--reverse',
    '--first-parent',
    '--diff-merges=first-parent',
    '-p',
    '--unified=0',
    '--find-renames=50%',
    '--no-color',
    '--no-ext-diff',
    '--no-textconv',
    '--ignore-submodules=all',
    '--src-prefix=a/',
    '--dst-prefix=b/',
    '--format=%x01%H %P',
    '--end-of-options',
    ...query.revisions,
    '--',
  ];
  const child = spawn('git', args, { cwd: query.git.cwd, env: { ...query.git.env, LC_ALL: 'C' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? -1));
  });
  let read = false;
  try {
    for await (const line of createInterface({ input: child.stdout, crlfDelay: Infinity })) yield line;
    read = true;
  } finally {
    if (!read) {
      // The walk stopped early (its caller failed): git is stopped, and how it ends is of no interest.
      child.kill();
      exited.catch(() => undefined);
    }
  }
  const code = await exited;
  if (code !== 0) throw new GitCommandError(args, stderr, new Error(`git log exited ${code}`));
}
