// What git's hooks spooled, folded: the installed post-commit, post-rewrite
// and post-merge hooks (install/git-hooks.ts) record what git said as a spool
// entry (spool/entry.ts, agent `git`) and return; the fold makes the ledger,
// note and links, in the spool's order, after every agent event spooled
// before the commit. Each step is made once whatever re-runs it: the ledger
// and the link are appended only when absent (link-commit.ts), the claims and
// the note are written, not added.
//
// Payloads, one value a line:
//   post-commit    <the commit HEAD named when the hook ran>
//   post-rewrite   <amend|rebase>, then git's "<old> <new>" lines
//   post-merge     <squash flag>, <ORIG_HEAD or nothing>, <HEAD>
import { Readable, Writable } from 'node:stream';
import type { SpoolEntry } from '../spool/entry.js';

/** The hooks a git entry may name. */
export const SPOOLED_GIT_HOOKS = ['post-commit', 'post-rewrite', 'post-merge'] as const;

/** Records one spooled git hook run; failures go to hook-errors.log, as the hook's own did. */
export async function foldGitEntry(entry: SpoolEntry, env: NodeJS.ProcessEnv): Promise<void> {
  const text = entry.payload.kind === 'ok' ? entry.payload.text : '';
  const lines = text.split('\n');
  const io = { cwd: entry.cwd, env, stdout: sink(), stderr: sink(), verbose: false };
  const hooks = await import('./git-hook-entry.js');
  switch (entry.event) {
    case 'post-commit': {
      const commit = lines[0]?.trim() ?? '';
      // No commit named (git could not say): what HEAD is now, as the synchronous hook did.
      await hooks.runCommitLink(commit === '' ? 'HEAD' : commit, { ...io, summary: false });
      return;
    }
    case 'post-rewrite':
      await hooks.runRewriteLedger(lines[0]?.trim() ?? '', Readable.from([lines.slice(1).join('\n')]), io);
      return;
    case 'post-merge': {
      const before = lines[1]?.trim() ?? '';
      const after = lines[2]?.trim() ?? '';
      // Without ORIG_HEAD (a first pull into an empty branch) there is nothing to compare.
      if (before !== '' && after !== '') await hooks.runPostMerge(io, `${before}..${after}`);
      return;
    }
    default:
      await hooks.logUnknownGitEntry(entry.event, io);
  }
}

function sink(): Writable {
  return new Writable({ write: (_chunk, _encoding, done) => done() });
}
