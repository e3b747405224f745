// Carries each line a reconciled commit added back to the line it was on the
// branch, and takes that line's author from the branch commit's ledger:
// - by patch: when the commit's diff is the source's (same patch-id), the k-th
//   line it added in a file is the k-th line the source added there;
// - by blame: otherwise (a squash of many commits), git blame reads the commit's
//   files against the branch head's history. A throw-away commit with the
//   commit's tree on top of the branch head makes that possible with every git
//   (`blame --contents` takes a revision only since git 2.41). Lines blamed on a
//   branch commit take what its ledger says of the line there (renames
//   followed by git), so a person's line between two agent lines stays the
//   person's; lines blamed on anything else are the merger's.
import type { AddedLines } from '../../capture/ledger/commit-diff.js';
import { runGit, type GitOptions } from '../../capture/ledger/git-exec.js';
import type { LineAuthor, RecordLine } from '../../capture/ledger/ledger-record.js';
import { isAttributableLine } from '../../capture/trace-record.js';
import { runBlame, type BlamedLine } from '../blame-porcelain.js';
import { lineContributor, type ConversationView, type LedgerView } from '../ledger-view.js';

export interface MappedLines {
  files: Map<string, RecordLine[]>;
  /** Branch commits with a ledger that some line came from. */
  from: Set<string>;
  /** Branch commits without a ledger that some line came from: those lines are `unknown`. */
  withoutLedger: Set<string>;
}

export type LedgerLookup = (commit: string) => LedgerView | undefined;

export const UNKNOWN_AUTHOR: LineAuthor = { key: '\u0002unknown', conversation: { contributor: { type: 'unknown' } }, traceIds: [] };

/** The record author of a line its source ledger attributes to `who`; undefined for a person. */
export function authorOf(who: ConversationView): LineAuthor | undefined {
  if (who.type === 'human') return undefined;
  if (who.type === 'unknown') return UNKNOWN_AUTHOR;
  return {
    key: [who.type, who.url ?? '', who.model_id ?? ''].join('\u0000'),
    conversation: {
      ...(who.url === null ? {} : { url: who.url }),
      contributor: { type: who.type, ...(who.model_id === null ? {} : { model_id: who.model_id }) },
    },
    traceIds: who.traces,
  };
}

/** Same patch: line k of the commit is line k of the source, file by file; undefined when the counts differ. */
export function mapByPatch(added: AddedLines, sourceAdded: AddedLines, source: string, ledger: LedgerView): MappedLines | undefined {
  const files = new Map<string, RecordLine[]>();
  for (const [path, lines] of added) {
    const theirs = sourceAdded.get(path);
    if (!theirs || theirs.length !== lines.length) return undefined;
    files.set(
      path,
      lines.map((line, index) => {
        if (!isAttributableLine(line.text)) return { ...line, blank: true };
        const author = authorOf(lineContributor(ledger, path, theirs[index]!.line));
        return author ? { ...line, author } : { ...line };
      }),
    );
  }
  return { files, from: new Set([source]), withoutLedger: new Set() };
}

/** Fixed identity and date: the throw-away commit has the same id on every machine and run. */
const SCRATCH_ENV = {
  GIT_AUTHOR_NAME: 'tracer',
  GIT_AUTHOR_EMAIL: 'tracer@localhost',
  GIT_AUTHOR_DATE: '@0 +0000',
  GIT_COMMITTER_NAME: 'tracer',
  GIT_COMMITTER_EMAIL: 'tracer@localhost',
  GIT_COMMITTER_DATE: '@0 +0000',
};

/** At most this many `git blame` at once: the machine running a hook is busy with other work. */
const BLAME_CONCURRENCY = 4;

export async function mapThroughBlame(
  target: string,
  added: AddedLines,
  head: string,
  branch: ReadonlySet<string>,
  ledgerOf: LedgerLookup,
  git: GitOptions,
): Promise<MappedLines> {
  const scratch = (
    await runGit(['commit-tree', `${target}^{tree}`, '-p', head, '-m', 'tracer reconcile'], { ...git, env: { ...git.env, ...SCRATCH_ENV } })
  ).trim();
  const paths = [...added.keys()];
  const blamed = new Map<string, Map<number, BlamedLine>>();
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      const path = paths[next++]!;
      const outcome = await runBlame({ cwd: git.cwd, env: git.env, path, rev: scratch });
      // A file git cannot blame keeps the merger's lines: nothing is guessed.
      if (!outcome.failure) blamed.set(path, new Map(outcome.lines.map((line) => [line.line, line])));
    }
  };
  await Promise.all(Array.from({ length: Math.min(BLAME_CONCURRENCY, paths.length) }, worker));
  const mapped: MappedLines = { files: new Map(), from: new Set(), withoutLedger: new Set() };
  for (const [path, lines] of added) {
    const byLine = blamed.get(path);
    mapped.files.set(
      path,
      lines.map((line) => {
        if (!isAttributableLine(line.text)) return { ...line, blank: true };
        const origin = byLine?.get(line.line);
        if (!origin || !branch.has(origin.commit)) return { ...line };
        const ledger = ledgerOf(origin.commit);
        if (!ledger) {
          mapped.withoutLedger.add(origin.commit);
          return { ...line, author: UNKNOWN_AUTHOR };
        }
        mapped.from.add(origin.commit);
        const author = authorOf(lineContributor(ledger, origin.origPath, origin.origLine));
        // Where the agent wrote it: its trace names that path (attribution-state claims, claims.ts).
        const moved = origin.origPath === path ? {} : { sourcePath: origin.origPath };
        return author ? { ...line, author, ...moved } : { ...line };
      }),
    );
  }
  return mapped;
}
