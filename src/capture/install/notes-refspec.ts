// Ledgers are also git notes under refs/notes/tracer (spec §2.6). git fetches
// notes only when a remote's fetch refspecs name them, so `tracer init --notes`
// adds this refspec (opt-in: it changes what every fetch downloads).
import { ExitCode, TracerError } from '../../core/errors.js';
import { runGit } from './git.js';

export const NOTES_REFSPEC = '+refs/notes/tracer:refs/notes/tracer';
const NOTES_REFSPEC_PATTERN = '^\\+refs/notes/tracer:refs/notes/tracer$';

export function gitRemotes(worktree: string, env: NodeJS.ProcessEnv): string[] {
  return (runGit(worktree, env, ['remote']) ?? '').split('\n').filter((name) => name !== '');
}

/** Adds the refspec to `only` (or every remote); returns the remotes that gained it. */
export function addNotesRefspec(worktree: string, env: NodeJS.ProcessEnv, only?: string): string[] {
  const remotes = gitRemotes(worktree, env);
  if (only !== undefined && !remotes.includes(only)) {
    throw new TracerError(
      'git_remote_not_found',
      `This repository has no git remote named "${only}"; pick one of: ${remotes.join(', ') || '(none)'}.`,
      {
        exitCode: ExitCode.usage,
      },
    );
  }
  const added: string[] = [];
  for (const remote of only === undefined ? remotes : [only]) {
    const specs = runGit(worktree, env, ['config', '--get-all', `remote.${remote}.fetch`], { allowFailure: true }) ?? '';
    if (specs.split('\n').includes(NOTES_REFSPEC)) continue;
    runGit(worktree, env, ['config', '--add', `remote.${remote}.fetch`, NOTES_REFSPEC]);
    added.push(remote);
  }
  return added;
}

/** Removes exactly our refspec from every remote; returns the remotes that had it. */
export function removeNotesRefspec(worktree: string, env: NodeJS.ProcessEnv): string[] {
  const removed: string[] = [];
  for (const remote of gitRemotes(worktree, env)) {
    const specs = runGit(worktree, env, ['config', '--get-all', `remote.${remote}.fetch`], { allowFailure: true }) ?? '';
    if (!specs.split('\n').includes(NOTES_REFSPEC)) continue;
    runGit(worktree, env, ['config', '--unset-all', `remote.${remote}.fetch`, NOTES_REFSPEC_PATTERN]);
    removed.push(remote);
  }
  return removed;
}
