// The git hooks of spec §2.4: post-commit links the commit to the traces,
// post-rewrite moves ledgers along with amended or rebased commits, post-merge
// reconciles what a `git pull` brought (squashes and rebases made by a merge
// button, docs/attribution.md). A hook that
// was already there is renamed `<hook>.pre-tracer` and run first by ours, with the
// same arguments and input, and its exit status is what git sees; that works for a
// hook in any language, and uninstall renames it back untouched.
import { chmodSync, lstatSync, readFileSync } from 'node:fs';
import { writeFileAtomic } from '../../files/atomic-write.js';
import { dirname, join, resolve } from 'node:path';
import { ExitCode, TracerError } from '../../core/errors.js';
import { ensureDirSync, errnoCode, moveSync, removeSync, unwritable } from '../../files/index.js';
import { runGit } from './git.js';
import { shellProgram, shellQuote, type TracerInvocation } from './invocation.js';
import type { FileChange } from './agent-hooks.js';
import { GIT_ENTRY_SUFFIX } from '../spool/pending.js';
import { PROJECT_STATE_FILES } from '../../store/home.js';

const PROJECT_CONFIG_FILE = PROJECT_STATE_FILES.config;

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
 * The hook records what git said and returns; the ledger, note and links are
 * made by a fold in the background (src/capture/ledger/spooled-git.ts), after
 * every agent event spooled before, and every tracer command that reads them
 * folds first. The entry is written as bin/tracer-hook.sh writes the agents'
 * (src/capture/spool/entry.ts, agent `git`), without starting any process but
 * the one `git rev-parse` that names the commit. What cannot be spooled (TRACER_HOOK_SYNC=1, a relative TRACER_HOME
 * or folder, a line break in a path, a spool that cannot be written) is
 * recorded by tracer at once, as before.
 *
 * tracer's output goes nowhere and its status is ignored: a commit or rebase
 * must never fail, or print noise, because of tracer. The one exception is
 * the one-line AI/human bar of the `commit_summary` setting: when a config file
 * may ask for it (read by the shell, no process started), post-commit waits for tracer (which folds, then prints) and
 * hands it its stderr as descriptor 3 (TRACER_SUMMARY_FD), which carries that
 * line and nothing else, so a crash still prints nothing. The absolute paths
 * (or install.sh's launcher) come first (see invocation.ts); `tracer` on PATH
 * is the fallback when they are gone.
 */
export function hookScript(name: GitHookName, invocation: TracerInvocation): string {
  const rewrite = name === 'post-rewrite';
  const commit = name === 'post-commit';
  const feed = rewrite ? `printf '%s\\n' "$input" | ` : '';
  const syncArgs = rewrite ? 'rewrite-ledger "$1"' : commit ? 'commit-link' : 'reconcile --post-merge';
  const syncInput = rewrite ? '' : ' </dev/null';
  const syncEnv = commit ? 'TRACER_SUMMARY_FD=3 ' : '';
  const syncOutput = commit ? '3>&2 >/dev/null 2>&1' : '>/dev/null 2>&1';
  const program = shellProgram(invocation);
  // Where tracer keeps its data when TRACER_HOME is not set: install.sh's launcher says its own home ($home/bin/tracer).
  const defaultHome =
    'launcher' in invocation ? `tracer_home=${shellQuote(dirname(dirname(invocation.launcher)))}` : 'tracer_home=${HOME:+$HOME/.tracer}';
  // What git said, one value a line (src/capture/ledger/spooled-git.ts).
  const said = commit
    ? 'git rev-parse -q --verify HEAD'
    : rewrite
      ? `printf '%s\\n%s' "$1" "$input"`
      : `printf '%s\\n' "\${1:-0}"; git rev-parse -q --verify 'ORIG_HEAD^{commit}' || echo; git rev-parse -q --verify HEAD`;
  // post-commit, on every commit, spares the rename: its entry is one short write, named by its commit, and a
  // fold waits the moment it takes for one it finds cut short. The others are written under a dot name, then renamed.
  const write = commit
    ? `printf '%s' "$entry" 2>/dev/null >"$spool/$said-$$${GIT_ENTRY_SUFFIX}" && spooled=1
  [ -n "$spooled" ] || rm -f "$spool/$said-$$${GIT_ENTRY_SUFFIX}" 2>/dev/null`
    : `name=$(date +%s)-$$
  printf '%s' "$entry" 2>/dev/null >"$spool/.$name" && mv -f "$spool/.$name" "$spool/$name${GIT_ENTRY_SUFFIX}" 2>/dev/null && spooled=1
  [ -n "$spooled" ] || rm -f "$spool/.$name" 2>/dev/null`;
  const summary = commit
    ? `
# Whether a config file may ask for the commit's bar (commit_summary); tracer decides which one applies.
summary_wanted() {
  for file in "$home/config.json" "$home"/projects/*/${PROJECT_CONFIG_FILE}; do
    [ -f "$file" ] || continue
    while IFS= read -r line || [ -n "$line" ]; do
      case $line in *'"commit_summary": true'*) return 0 ;; esac
    done <"$file"
  done
  return 1
}`
    : '';
  const after = commit
    ? `  if summary_wanted; then
    TRACER_SUMMARY_FD=3 run_tracer commit-link --spooled --commit "$said" </dev/null 3>&2 >/dev/null 2>&1
  else
    fold_in_background
  fi`
    : '  fold_in_background';
  return `#!/bin/sh
# Installed by \`tracer init\`; \`tracer init --uninstall\` removes it.
# ${MARKER} ${name}
# Runs the hook that was here before (saved as ${name}${CHAINED_SUFFIX}) with the
# same arguments${rewrite ? ' and input' : ''}, then records what git said in tracer's spool
# and returns: a fold in the background makes the ledgers, notes and links, and
# every tracer command that reads them folds first. Git sees that hook's exit
# status; tracer itself never makes git fail.
chained="\${0%/*}/${name}${CHAINED_SUFFIX}"
${rewrite ? 'input=$(cat)\n' : ''}status=0
if [ -x "$chained" ]; then
  ${feed}"$chained" "$@"
  status=$?
fi
${program.assign}
run_tracer() {
  if ${program.present}; then
    ${program.run} "$@"
  elif command -v tracer >/dev/null 2>&1; then
    tracer "$@"
  fi
}
fold_in_background() {
  (unset GIT_DIR GIT_WORK_TREE GIT_COMMON_DIR GIT_INDEX_FILE GIT_PREFIX; TRACER_HOME=$home run_tracer hook --fold) </dev/null >/dev/null 2>&1 &
}${summary}
${defaultHome}
home=\${TRACER_HOME:-$tracer_home}
[ "\${TRACER_HOOK_SYNC:-}" = 1 ] && home=
case $home in /*) ;; *) home= ;; esac
case $PWD in /*) ;; *) home= ;; esac
case $PWD$home\${HOME:-}\${GIT_DIR:-}\${GIT_WORK_TREE:-}\${GIT_COMMON_DIR:-} in *'
'*) home= ;; esac
spooled=
if [ -n "$home" ]; then
  said=$(${said}) || home=
fi
if [ -n "$home" ]; then
  spool=$home/spool
  [ -d "$spool" ] || mkdir -m 700 -p "$spool" 2>/dev/null
  entry="tracer-spool 1
git
${name}
$PWD
"
  [ -n "\${HOME+set}" ] && entry="\${entry}HOME=$HOME
"
  [ -n "\${GIT_DIR+set}" ] && entry="\${entry}GIT_DIR=$GIT_DIR
"
  [ -n "\${GIT_WORK_TREE+set}" ] && entry="\${entry}GIT_WORK_TREE=$GIT_WORK_TREE
"
  [ -n "\${GIT_COMMON_DIR+set}" ] && entry="\${entry}GIT_COMMON_DIR=$GIT_COMMON_DIR
"
  entry="$entry
$said
"
  ${write}
fi
if [ -n "$spooled" ]; then
${after}
else
  ${feed}${syncEnv}run_tracer ${syncArgs}${syncInput} ${syncOutput}
fi
exit $status
`;
}
