// The git hooks of spec §2.4: post-commit links the commit to the traces,
// post-rewrite moves ledgers along with amended or rebased commits, post-merge
// reconciles what a `git pull` brought (squashes and rebases made by a merge
// button, docs/attribution.md). A hook that
// was already there is renamed `<hook>.pre-tracer` and run first by ours, with the
// same arguments and input, and its exit status is what git sees; that works for a
// hook in any language, and uninstall renames it back untouched.
import { chmodSync, lstatSync, readFileSync } from 'node:fs';
import { writeFileAtomic } from '../../files/atomic-write.js';
import { join, resolve } from 'node:path';
import { ExitCode, TracerError } from '../../core/errors.js';
import { ensureDirSync, errnoCode, moveSync, removeSync, unwritable } from '../../files/index.js';
import { runGit } from './git.js';
import { shellProgram, type TracerInvocation } from './invocation.js';
import type { FileChange } from './agent-hooks.js';

export const GIT_HOOK_NAMES = ['post-commit', 'post-rewrite', 'post-merge'] as const;
export type GitHookName = (typeof GIT_HOOK_NAMES)[number];
export const CHAINED_SUFFIX = '.pre-tracer';
const MARKER = 'tracer-managed-hook:';

export interface GitHookPlan {
  name: GitHookName;
  path: string;
  script: string;
  action: 'write' | 'chain' | 'none';
  change: FileChange | 'chained';
}

/** The hooks folder git uses here: core.hooksPath (relative to the worktree top) or the common git dir's hooks. */
export function hooksDir(worktree: string, env: NodeJS.ProcessEnv): string {
  return resolve(worktree, runGit(worktree, env, ['rev-parse', '--git-path', 'hooks'])!);
}

export function planGitHooks(dir: string, invocation: TracerInvocation): GitHookPlan[] {
  return GIT_HOOK_NAMES.map((name) => {
    const path = join(dir, name);
    const script = hookScript(name, invocation);
    const existing = readHook(path);
    if (existing === undefined) return { name, path, script, action: 'write', change: 'added' };
    if (isOurs(existing, name))
      return existing === script
        ? { name, path, script, action: 'none', change: 'unchanged' }
        : { name, path, script, action: 'write', change: 'updated' };
    if (readHook(path + CHAINED_SUFFIX) !== undefined) {
      throw new TracerError(
        'git_hook_conflict',
        `${path} is not tracer's and ${path}${CHAINED_SUFFIX} already exists, so tracer cannot chain it; merge the two by hand (or remove ${name}${CHAINED_SUFFIX}) and run tracer init again.`,
        { exitCode: ExitCode.localState },
      );
    }
    return { name, path, script, action: 'chain', change: 'chained' };
  });
}

export async function applyGitHooks(plans: readonly GitHookPlan[]): Promise<void> {
  for (const plan of plans) {
    try {
      if (plan.action === 'none') {
        chmodSync(plan.path, 0o755);
        continue;
      }
      ensureDirSync(resolve(plan.path, '..'));
      if (plan.action === 'chain') moveSync(plan.path, plan.path + CHAINED_SUFFIX);
      // A hook cut off mid-write would run half a script on every commit.
      await writeFileAtomic(plan.path, plan.script, { mode: 0o755 });
    } catch (error) {
      throw unwritable(plan.path, error);
    }
  }
}

/** Removes our hooks; a chained hook gets its name back. Hooks that are not ours are left alone. */
export function removeGitHooks(dir: string): Array<{ name: GitHookName; path: string; change: FileChange }> {
  return GIT_HOOK_NAMES.map((name) => {
    const path = join(dir, name);
    const existing = readHook(path);
    if (existing === undefined || !isOurs(existing, name)) return { name, path, change: 'absent' as const };
    try {
      if (readHook(path + CHAINED_SUFFIX) !== undefined) {
        moveSync(path + CHAINED_SUFFIX, path, { overwrite: true });
        return { name, path, change: 'restored' as const };
      }
      removeSync(path);
      return { name, path, change: 'removed' as const };
    } catch (error) {
      throw unwritable(path, error);
    }
  });
}

function isOurs(text: string, name: GitHookName): boolean {
  return text.includes(`# ${MARKER} ${name}\n`);
}

function readHook(path: string): string | undefined {
  try {
    lstatSync(path);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return readFileSync(path, 'utf8');
  } catch {
    // A dangling symlink or unreadable hook still occupies the name: chain it as it is.
    return '';
  }
}

/**
 * tracer's output goes nowhere and its status is ignored: a commit or rebase
 * must never fail, or print noise, because of tracer. The one exception is
 * the one-line AI/human bar of the `commit_summary` setting: post-commit hands
 * tracer its stderr as descriptor 3 (TRACER_SUMMARY_FD), which carries that
 * line and nothing else, so a crash still prints nothing. The absolute paths
 * (or install.sh's launcher) come first (see invocation.ts); `tracer` on PATH is the fallback when they
 * are gone.
 */
export function hookScript(name: GitHookName, invocation: TracerInvocation): string {
  const rewrite = name === 'post-rewrite';
  const feed = rewrite ? `printf '%s\\n' "$input" | ` : '';
  const commit = name === 'post-commit';
  const tracerArgs = rewrite ? 'rewrite-ledger "$1"' : commit ? 'commit-link' : 'reconcile --post-merge';
  const tracerInput = rewrite ? '' : ' </dev/null';
  const tracerEnv = commit ? 'TRACER_SUMMARY_FD=3 ' : '';
  const tracerOutput = commit ? '3>&2 >/dev/null 2>&1' : '>/dev/null 2>&1';
  const program = shellProgram(invocation);
  return `#!/bin/sh
# Installed by \`tracer init\`; \`tracer init --uninstall\` removes it.
# ${MARKER} ${name}
# Runs the hook that was here before (saved as ${name}${CHAINED_SUFFIX}) with the
# same arguments${rewrite ? ' and input' : ''}, then tracer. Git sees that hook's exit status;
# tracer itself never makes git fail.
chained="$(dirname "$0")/${name}${CHAINED_SUFFIX}"
${rewrite ? 'input=$(cat)\n' : ''}status=0
if [ -x "$chained" ]; then
  ${feed}"$chained" "$@"
  status=$?
fi
${program.assign}
if ${program.present}; then
  ${feed}${tracerEnv}${program.run} ${tracerArgs}${tracerInput} ${tracerOutput}
elif command -v tracer >/dev/null 2>&1; then
  ${feed}${tracerEnv}tracer ${tracerArgs}${tracerInput} ${tracerOutput}
fi
exit $status
`;
}
