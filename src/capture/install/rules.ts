// Rules (spec §2.4): instructions the agents load with every session, installed
// as `tracer-<name>` files in each agent's rules folder. The prefix is how list
// and remove tell tracer's rules from the user's own.
import { readdirSync, readFileSync, rmdirSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../../files/atomic-write.js';
import { ensureDirSync } from '../../files/index.js';
import { ExitCode, TracerError } from '../../core/errors.js';
import { findGit } from '../../store/git.js';
import { errnoCode, unwritable } from '../../files/index.js';
import type { AgentAdapter } from '../../core/agent.js';

/** An agent that loads rules: its adapter says where. */
export type RuleAgent = AgentAdapter & { rules: NonNullable<AgentAdapter['rules']> };

export function ruleAgents<T extends AgentAdapter>(agents: readonly T[]): Array<T & RuleAgent> {
  return agents.filter((agent): agent is T & RuleAgent => agent.rules !== undefined);
}

const RULE_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_RULE_NAME = 64;
const FRONT_MATTER = /^---\r?\n[\s\S]*?\r?\n---\r?\n/;

export const DEFAULT_RULE_TEXT = `# Tracer: recorded agent sessions

This repository records AI coding sessions with tracer.

- Before continuing earlier work, run \`tracer context\`: it prints the recent agent sessions of this project, their summaries, and which lines of the last commits an agent wrote (\`tracer context --json\` for the same as JSON).
- Leave tracer's hook entries in the agent settings and the git hooks in place; \`tracer init --uninstall\` removes them when they are no longer wanted.
`;

export function checkRuleName(name: string): string {
  if (name.length > MAX_RULE_NAME || !RULE_NAME.test(name)) {
    throw new TracerError(
      'invalid_rule_name',
      `"${name}" is not a valid rule name; use 1 to ${MAX_RULE_NAME} lowercase letters, digits and single dashes (for example "context").`,
      {
        exitCode: ExitCode.usage,
      },
    );
  }
  return name;
}

export function rulePath(worktree: string, agent: RuleAgent, name: string): string {
  return join(worktree, agent.rules.dir, `tracer-${name}${agent.rules.extension}`);
}

/**
 * The file for one agent. Cursor needs front matter to apply a rule to every
 * request; a source that brings its own keeps it for Cursor, and the plain
 * Markdown agents get the body only.
 */
export function ruleContent(agent: RuleAgent, name: string, source: string): string {
  const text = source.endsWith('\n') ? source : `${source}\n`;
  const frontMatter = FRONT_MATTER.exec(text)?.[0];
  const body = frontMatter ? text.slice(frontMatter.length).replace(/^(\r?\n)+/, '') : text;
  if (agent.rules.extension === '.md') return body;
  if (frontMatter) return text;
  return `---\ndescription: ${JSON.stringify(describe(name, body))}\nglobs:\nalwaysApply: true\n---\n\n${body}`;
}

function describe(name: string, body: string): string {
  const heading = /^#+\s+(.+?)\s*$/m.exec(body)?.[1];
  return heading ?? `tracer rule ${name}`;
}

export type RuleChange = 'added' | 'replaced' | 'unchanged';

export interface RuleWrite {
  agent: RuleAgent;
  path: string;
  content: string;
  change: RuleChange;
}

/** Checks every target before writing any: a different rule in place stops the whole add unless forced. */
export function planRule(worktree: string, agents: readonly RuleAgent[], name: string, source: string, force: boolean): RuleWrite[] {
  const writes = agents.map((agent): RuleWrite => {
    const path = rulePath(worktree, agent, name);
    const content = ruleContent(agent, name, source);
    const existing = readIfExists(path);
    return { agent, path, content, change: existing === undefined ? 'added' : existing === content ? 'unchanged' : 'replaced' };
  });
  const different = writes.filter((write) => write.change === 'replaced');
  if (different.length > 0 && !force) {
    throw new TracerError(
      'rule_exists',
      `A different rule "${name}" is already installed (${different.map((write) => write.path).join(', ')}); pass --force to replace it, or pick another name.`,
      {
        exitCode: ExitCode.usage,
      },
    );
  }
  return writes;
}

export async function writeRules(writes: readonly RuleWrite[]): Promise<void> {
  for (const write of writes) {
    if (write.change === 'unchanged') continue;
    try {
      ensureDirSync(dirname(write.path));
      await writeFileAtomic(write.path, write.content, { mode: 0o644 });
    } catch (error) {
      throw unwritable(write.path, error);
    }
  }
}

/** Rule name → agents that have it, sorted by name. */
export function listRules(worktree: string, agents: readonly RuleAgent[]): Map<string, RuleAgent[]> {
  const found = new Map<string, RuleAgent[]>();
  for (const agent of agents) {
    for (const file of readdirOrEmpty(join(worktree, agent.rules.dir))) {
      if (!file.startsWith('tracer-') || !file.endsWith(agent.rules.extension)) continue;
      const name = file.slice('tracer-'.length, -agent.rules.extension.length);
      if (!RULE_NAME.test(name)) continue;
      found.set(name, [...(found.get(name) ?? []), agent]);
    }
  }
  return new Map([...found].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Deletes the rule's files; a rules folder left empty goes too, then its agent folder if that is empty as well. */
export function removeRule(worktree: string, agents: readonly RuleAgent[], name: string): string[] {
  const removed: string[] = [];
  for (const agent of agents) {
    const path = rulePath(worktree, agent, name);
    try {
      unlinkSync(path);
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') continue;
      throw unwritable(path, error);
    }
    removed.push(path);
    if (removeIfEmpty(dirname(path))) removeIfEmpty(dirname(dirname(path)));
  }
  if (removed.length === 0) {
    throw new TracerError(
      'rule_not_found',
      `No tracer rule named "${name}" is installed here; tracer rule list shows the installed ones.`,
      { exitCode: ExitCode.usage },
    );
  }
  return removed;
}

function removeIfEmpty(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch {
    return false;
  }
}

function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw new TracerError(
      'rule_unreadable',
      `Cannot read ${path} (${errnoCode(error)}); check its permissions and run the command again.`,
      { exitCode: ExitCode.localState },
    );
  }
}

function readdirOrEmpty(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/** Rules live in the working tree; they need a repository but not an initialized project. */
export function worktreeFor(cwd: string, env: NodeJS.ProcessEnv): string {
  const git = findGit(cwd, env);
  if (!git) {
    throw new TracerError(
      'not_a_git_repository',
      `${cwd} is not inside a git repository; cd into your repository (or run git init) and try again.`,
      {
        exitCode: ExitCode.localState,
      },
    );
  }
  return git.worktree;
}
