// The optional one-line AI/human bar the post-commit hook prints on stderr
// (setting `commit_summary`, off by default; the project's value wins over the
// global one). Inside the hook the line goes to the descriptor named by
// TRACER_SUMMARY_FD (git's stderr, see install/git-hooks.ts), the only output
// of tracer the hook lets through; run by hand, to stderr. Whatever goes wrong
// here is swallowed: a commit never fails, nor waits long, for a summary.
import { writeSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { readGlobalConfig, readProjectConfig } from '../store/config-files.js';
import type { GitOptions } from '../capture/ledger/git-exec.js';

export async function commitSummaryEnabled(projectDir: string, home: string): Promise<boolean> {
  try {
    const project = (await readProjectConfig(projectDir)).commit_summary;
    if (typeof project === 'boolean') return project;
    return (await readGlobalConfig(home)).commit_summary === true;
  } catch {
    return false;
  }
}

export async function printCommitSummary(ledger: unknown, git: GitOptions, stderr: Writable): Promise<void> {
  try {
    const [{ readLedgerLine }, { readCommitDiffs, tallyCommit }, { commitBar }] = await Promise.all([
      import('./ledger-view.js'),
      import('./commit-lines.js'),
      import('./format-summary.js'),
    ]);
    const view = readLedgerLine(ledger);
    if (!view) return;
    const [diff] = await readCommitDiffs([view.commit], git, 1);
    if (!diff) return;
    const line = `${commitBar(view.commit, tallyCommit(diff, view).lines)}\n`;
    const fd = Number(git.env.TRACER_SUMMARY_FD);
    if (Number.isInteger(fd) && fd > 2) writeSync(fd, line);
    else stderr.write(line);
  } catch {
    // The summary is a courtesy; the ledger is already recorded.
  }
}
