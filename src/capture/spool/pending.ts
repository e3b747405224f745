// Whether the hook's spool holds events not yet folded into traces.jsonl. Every
// tracer process asks this before it reads anything, so it is one readdir and
// imports nothing else; fold.ts is loaded only when the answer is yes.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** bin/tracer-hook.sh writes here: `$TRACER_HOME/spool/`. */
export function spoolDir(home: string): string {
  return join(home, 'spool');
}

/** An entry the hook finished writing: `<unix seconds>-<pid>.event` (a dot name while it is being written). */
export const ENTRY_SUFFIX = '.event';
/** What git's hooks spool (install/git-hooks.ts): `<unix seconds>-<pid>.git.event`, agent `git`. */
export const GIT_ENTRY_SUFFIX = '.git.event';
export const GIT_AGENT = 'git';
/** The lock one fold at a time holds (store/file-lock.ts), in the spool folder. */
export const FOLD_LOCK = '.fold.lock';
/** The warning of a command run without part of the spool (fold-first.ts). */
export const SPOOL_NOT_FOLDED = 'spool_not_folded';

export function spoolPending(home: string): boolean {
  try {
    return readdirSync(spoolDir(home)).some((name) => name.endsWith(ENTRY_SUFFIX));
  } catch {
    return false;
  }
}
