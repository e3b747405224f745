import { relative } from 'node:path';
import type { GitLocation } from '../../store/git.js';
import type { AgentAdapter } from '../../core/agent.js';
import { agentInstallPath, applyAgentHooks, planAgentHooks, removeAgentHooks, type AgentHookPlan } from './agent-hooks.js';
import { applyGitHooks, CHAINED_SUFFIX, hooksDir, planGitHooks, removeGitHooks, type GitHookPlan } from './git-hooks.js';
import { agentHookCommand, currentInvocation } from './invocation.js';
import { addNotesRefspec, removeNotesRefspec } from './notes-refspec.js';

/** What `tracer init` installs and `tracer init --uninstall` removes; one row per file touched. */
export interface InstallOptions {
  home: string;
  env: NodeJS.ProcessEnv;
  /** Undefined outside a repository (only `--global` agent hooks then). */
  git: GitLocation | undefined;
  agents: readonly AgentAdapter[];
  global: boolean;
  gitHooks: boolean;
  /** `true`: every git remote; a string: that remote only. */
  notes: boolean | string;
}

export interface InstallRow {
  what: string;
  path: string;
  change: string;
}

export interface InstallPlan {
  agentPlans: AgentHookPlan[];
  gitPlans: GitHookPlan[];
}

/** Reads and checks every file first; throws before anything is written. */
export async function planInstall(options: InstallOptions): Promise<InstallPlan> {
  const invocation = currentInvocation();
  const agentPlans: AgentHookPlan[] = [];
  for (const { agent, path } of agentTargets(options))
    agentPlans.push(await planAgentHooks(agent, path, (event) => agentHookCommand(invocation, agent.id, event), options.home));
  const gitPlans = options.git && options.gitHooks ? planGitHooks(hooksDir(options.git.worktree, options.env), invocation) : [];
  return { agentPlans, gitPlans };
}

export async function applyInstall(plan: InstallPlan, options: InstallOptions): Promise<InstallRow[]> {
  const rows: InstallRow[] = [];
  for (const agentPlan of plan.agentPlans) {
    const change = await applyAgentHooks(agentPlan, options.home);
    const path = agentPlan.kind === 'settings' ? agentPlan.file.path : agentPlan.dir;
    rows.push({ what: agentPlan.agent.id, path: shown(path, options), change });
  }
  await applyGitHooks(plan.gitPlans);
  for (const gitPlan of plan.gitPlans) {
    const change =
      gitPlan.change === 'chained' ? `chained (your hook now runs from ${gitPlan.name}${CHAINED_SUFFIX}, first)` : gitPlan.change;
    rows.push({ what: 'git', path: shown(gitPlan.path, options), change });
  }
  if (options.git && options.notes !== false) {
    const added = addNotesRefspec(options.git.worktree, options.env, options.notes === true ? undefined : options.notes);
    rows.push({
      what: 'git notes',
      path: 'refs/notes/tracer',
      change: added.length > 0 ? `fetched from ${added.join(', ')}` : 'unchanged',
    });
  }
  return rows;
}

export async function uninstall(options: InstallOptions): Promise<InstallRow[]> {
  const rows: InstallRow[] = [];
  for (const { agent, path } of agentTargets(options)) {
    rows.push({ what: agent.id, path: shown(path, options), change: await removeAgentHooks(agent, path, options.home) });
  }
  if (options.git && options.gitHooks) {
    for (const hook of removeGitHooks(hooksDir(options.git.worktree, options.env)))
      rows.push({ what: 'git', path: shown(hook.path, options), change: hook.change });
  }
  if (options.git && options.notes !== false) {
    const removed = removeNotesRefspec(options.git.worktree, options.env);
    rows.push({
      what: 'git notes',
      path: 'refs/notes/tracer',
      change: removed.length > 0 ? `no longer fetched from ${removed.join(', ')}` : 'absent',
    });
  }
  return rows;
}

/** Agents without user-wide hooks are left out of `--global` (init says so). */
function agentTargets(options: InstallOptions): Array<{ agent: AgentAdapter; path: string }> {
  if (!options.global && !options.git) return [];
  return options.agents.flatMap((agent) => {
    const path = agentInstallPath(agent, { global: options.global, worktree: options.git?.worktree, env: options.env });
    return path === undefined ? [] : [{ agent, path }];
  });
}

/** Paths inside the working tree relative to its top, others absolute. */
function shown(path: string, options: InstallOptions): string {
  if (!options.git) return path;
  const inside = relative(options.git.worktree, path);
  return inside.startsWith('..') || inside === '' ? path : inside;
}
