// Ledgers also travel with the repository as git notes under refs/notes/tracer
// (spec §2.6): a clone that fetches that ref reads each commit's attribution
// with `git notes --ref=tracer show <commit>`. The note is the ledger's Agent
// Trace record, spelled exactly as in the ledger's `record` member, so any Agent
// Trace reader can take it as it is.
import { GitCommandError, runGit, type GitOptions } from './git-exec.js';
import { noteText, type Ledger } from './ledger-record.js';

export const NOTES_REF = 'tracer';

/** A notes commit needs a committer; where none is configured, tracer signs its own notes. */
const FALLBACK_IDENTITY = ['-c', 'user.name=tracer', '-c', 'user.email=tracer@localhost'];

/** `fresh`: the commit had no ledger, so no note of tracer's to compare with (one git call fewer). */
export async function writeLedgerNote(ledger: Ledger, git: GitOptions, options: { fresh?: boolean } = {}): Promise<void> {
  const args = ['notes', `--ref=${NOTES_REF}`, 'add', '-f', '-F', '-', ledger.commit];
  const input = noteText(ledger);
  if (!options.fresh && (await readLedgerNote(ledger.commit, git)) === input) return;
  try {
    await runGit(args, { ...git, input });
  } catch (error) {
    if (!(error instanceof GitCommandError) || !/tell me who you are|unable to auto-detect email|empty ident/i.test(error.stderr))
      throw error;
    await runGit([...FALLBACK_IDENTITY, ...args], { ...git, input });
  }
}

export async function readLedgerNote(commit: string, git: GitOptions): Promise<string | undefined> {
  try {
    return await runGit(['notes', `--ref=${NOTES_REF}`, 'show', commit], git);
  } catch (error) {
    if (error instanceof GitCommandError) return undefined;
    throw error;
  }
}
