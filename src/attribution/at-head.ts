// The AI lines still there at the tip of the default branch: `git blame` of
// each file at that commit (following renames, as blame does), each line's
// contributor read from the ledger of the commit blame names, as `tracer blame`
// reads it. Counted per conversation URL. A file that is gone at the tip holds
// none; a squash or a rebase keeps the lines of the conversations its ledger
// names, so a merged pull request's lines count whichever way it was merged.
import { runBlame, UNCOMMITTED } from './blame-porcelain.js';
import type { GitOptions } from './git-read.js';
import type { LedgerLines } from './ledger-lines.js';
import { lineContributor, type LedgerView } from './ledger-view.js';

export async function linesAtTip(query: {
  git: GitOptions;
  tip: string;
  paths: readonly string[];
  ledgers: LedgerLines;
}): Promise<Record<string, number>> {
  const byUrl: Record<string, number> = {};
  const parsed = new Map<string, LedgerView | undefined>();
  const ledgerOf = (commit: string) => {
    if (!parsed.has(commit)) parsed.set(commit, query.ledgers.ledgersOf([commit]).get(commit));
    return parsed.get(commit);
  };
  let next = 0;
  const paths = [...new Set(query.paths)].sort();
  // Two blames at a time: git does the work, and more would only queue on two cores.
  const worker = async () => {
    while (next < paths.length) {
      const path = paths[next++]!;
      const outcome = await runBlame({ cwd: query.git.cwd, env: query.git.env, path, rev: query.tip });
      // A path the tip no longer has, or a binary file: none of its lines are there.
      if (outcome.failure || outcome.binary) continue;
      for (const line of outcome.lines) {
        if (UNCOMMITTED.test(line.commit)) continue;
        const ledger = ledgerOf(line.commit);
        if (!ledger) continue;
        const who = lineContributor(ledger, line.origPath, line.origLine);
        if ((who.type === 'ai' || who.type === 'mixed') && who.url !== null) byUrl[who.url] = (byUrl[who.url] ?? 0) + 1;
      }
    }
  };
  await Promise.all([worker(), worker()]);
  return byUrl;
}
