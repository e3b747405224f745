// The lines each commit added per file never change (a commit's id names its
// tree and its parents'), yet counting them is most of what `git log --numstat`
// costs over a long range. `tracer stats` asks git for the range's commits
// alone (ids, parents, author, subject: a walk, no diff), takes each commit's
// counts from `<project>/cache/numstat.jsonl`, and has git count only the
// commits it has not seen, in one `git log --no-walk --numstat` run.
import { join } from 'node:path';
import { runGit, type GitOptions } from '../capture/ledger/git-exec.js';
import { appendRecords, readRecords } from '../store/jsonl.js';
import { PROJECT_STATE_FILES } from '../store/home.js';
import { NUMSTAT_ARGS, parseLog, type CommitDiff } from './commit-lines.js';

export const NUMSTAT_CACHE_FILE = join(PROJECT_STATE_FILES.cache, 'numstat.jsonl');

interface Line {
  c: string;
  /** path → lines added. */
  a: Record<string, number>;
}

/** Like readCommitDiffs: the range's commits, newest first, with the lines each added per file. Throws GitCommandError when git refuses the range. */
export async function cachedCommitDiffs(revisions: readonly string[], git: GitOptions, projectDir: string): Promise<CommitDiff[]> {
  const path = join(projectDir, NUMSTAT_CACHE_FILE);
  const [headers, cached] = await Promise.all([
    runGit(['-c', 'core.quotePath=false', 'log', '-z', NUMSTAT_ARGS.format, '--end-of-options', ...revisions, '--'], git).then(parseLog),
    readCache(path),
  ]);
  const missing = headers.filter((commit) => commit.added !== undefined && !cached.has(commit.commit)).map((commit) => commit.commit);
  if (missing.length > 0) {
    const counted = parseLog(
      await runGit(
        ['-c', 'core.quotePath=false', 'log', '-z', ...NUMSTAT_ARGS.diff, NUMSTAT_ARGS.format, '--no-walk=unsorted', '--stdin'],
        {
          ...git,
          input: `${missing.join('\n')}\n`,
        },
      ),
    );
    const fresh: Line[] = [];
    for (const commit of counted) {
      if (!commit.added) continue;
      cached.set(commit.commit, commit.added);
      fresh.push({ c: commit.commit, a: Object.fromEntries(commit.added) });
    }
    try {
      appendRecords(path, fresh);
    } catch {
      // Only a cache: a read-only home counts them again next time.
    }
  }
  return headers.map((commit) => (commit.added === undefined ? commit : { ...commit, added: cached.get(commit.commit) ?? new Map() }));
}

async function readCache(path: string): Promise<Map<string, Map<string, number>>> {
  const found = new Map<string, Map<string, number>>();
  for await (const line of readRecords<Line>(path)) {
    if (typeof line !== 'object' || line === null || typeof line.c !== 'string' || typeof line.a !== 'object' || line.a === null) continue;
    const added = new Map<string, number>();
    for (const [file, count] of Object.entries(line.a)) if (typeof count === 'number') added.set(file, count);
    found.set(line.c, added);
  }
  return found;
}
