// Where a hook records: the project of the agent's working folder (the first
// capture in a repository creates its anchor, spec §2.3), or `$TRACER_HOME/detached/`
// outside any repository when the global setting capture_detached_edits is true.
import { existsSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { TracerError } from '../../core/errors.js';
import { homePaths, PRIVATE_DIR_MODE } from '../../store/home.js';
import { registerProject, resolveProject, type ResolvedProject } from '../../store/project.js';

export interface Destination {
  /** Folder of traces.jsonl, conversations/, session-summaries.jsonl, hook-errors.log. */
  dir: string;
  /** Repository root that file paths are made relative to; none when detached. */
  root?: string;
}

export const DETACHED_DIR = 'detached';

export interface DestinationOptions {
  /** Asked once the project is known, before anything is written for it: false, and nothing is recorded there. */
  recordsIn?(projectDir: string): boolean;
}

export async function resolveDestination(
  cwd: string,
  home: string,
  env: NodeJS.ProcessEnv,
  options: DestinationOptions = {},
): Promise<Destination | undefined> {
  // One walk for .git: resolveProject says when there is no repository.
  let project: ResolvedProject;
  try {
    project = resolveProject({ cwd, home, env, create: true });
  } catch (error) {
    if (!(error instanceof TracerError && error.code === 'not_a_git_repository')) throw error;
    if (!captureDetached(home)) return undefined;
    const dir = join(home, DETACHED_DIR);
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    return { dir };
  }
  if (options.recordsIn?.(project.dir) === false) return undefined;
  const isNew = !existsSync(project.dir);
  mkdirSync(project.dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  // projects.json is rewritten only for a new project or a worktree it has not seen, not on every tool use.
  if (isNew || project.created || !isRegistered(home, project.id, project.git.worktree)) await registerProject(home, project);
  return { dir: project.dir, root: realPath(project.git.worktree) };
}

/**
 * Read straight from config.json rather than through the state-file helpers: a
 * config.json that does not parse must not be moved aside by a hook.
 */
function captureDetached(home: string): boolean {
  try {
    const config: unknown = JSON.parse(readFileSync(homePaths(home).config, 'utf8'));
    return (
      typeof config === 'object' && config !== null && (config as { capture_detached_edits?: unknown }).capture_detached_edits === true
    );
  } catch {
    return false;
  }
}

function isRegistered(home: string, id: string, worktree: string): boolean {
  try {
    const registry = JSON.parse(readFileSync(homePaths(home).registry, 'utf8')) as { projects?: Record<string, { repo_paths?: unknown }> };
    const paths = registry.projects?.[id]?.repo_paths;
    return Array.isArray(paths) && paths.includes(worktree);
  } catch {
    return false;
  }
}

export function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
