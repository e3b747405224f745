// Ledgers also travel with the repository as git notes under refs/notes/tracer
// (spec §2.6): a clone that fetches that ref reads each commit's attribution
// with `git notes --ref=tracer show <commit>`. The note is the ledger's Agent
// Trace record, spelled exactly as in the ledger's `record` member, so any Agent
// Trace reader can take it as it is.
import { GitCommandError, runGit, type GitOptions } from './git-exec.js';
import { noteText, type Ledger } from './ledger-record.js';

export const NOTES_REF = 'tracer';
export const NOTES_FULL_REF = `refs/notes/${NOTES_REF}`;

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

/**
 * Many new notes in one notes commit, through one `git fast-import` (reconcile
 * of a 50-commit rebase writes 50): each `git notes add` is a process and a
 * commit of its own. The notes ref only moves forward from the tip read here;
 * should another writer move it meanwhile, fast-import refuses and each note is
 * written on its own instead.
 */
export async function writeLedgerNotes(
  ledgers: readonly Ledger[],
  git: GitOptions,
  /** The notes ref's commit as the caller read it ('' for none): one git call fewer. */
  knownTip?: string,
): Promise<void> {
  if (ledgers.length <= 1) {
    for (const ledger of ledgers) await writeLedgerNote(ledger, git, { fresh: true });
    return;
  }
  const ref = NOTES_FULL_REF;
  let tip = knownTip ?? '';
  if (knownTip === undefined) {
    try {
      tip = (await runGit(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], git)).trim();
    } catch (error) {
      if (!(error instanceof GitCommandError)) throw error;
    }
  }
  const message = Buffer.from(`Notes added by tracer reconcile\n`);
  const parts: Buffer[] = [
    Buffer.from(`commit ${ref}\ncommitter tracer <tracer@localhost> ${Math.floor(Date.now() / 1000)} +0000\ndata ${message.length}\n`),
    message,
    Buffer.from(tip === '' ? '' : `from ${tip}\n`),
  ];
  for (const ledger of ledgers) {
    const text = Buffer.from(noteText(ledger));
    parts.push(Buffer.from(`N inline ${ledger.commit}\ndata ${text.length}\n`), text, Buffer.from('\n'));
  }
  try {
    await runGit(['fast-import', '--quiet'], { ...git, input: Buffer.concat(parts).toString('utf8') });
  } catch (error) {
    if (!(error instanceof GitCommandError)) throw error;
    for (const ledger of ledgers) await writeLedgerNote(ledger, git);
  }
}
