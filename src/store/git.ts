// Finds the git directories for `cwd` without spawning git: hooks call tracer on
// every agent tool use, and a `git rev-parse` would cost more than the rest of the
// start-up. Follows gitrepository-layout(5): a `.git` folder, or a `.git` file
// (`gitdir: <path>`) for linked worktrees and submodules, whose `commondir` file
// points at the shared folder. `GIT_DIR` / `GIT_COMMON_DIR` win when set, as they
// are inside git's own hooks.
import { readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';

export interface GitLocation {
  /** Top of the working tree that contains cwd. */
  worktree: string;
  /** This worktree's git dir (`.git`, or `.git/worktrees/<name>`). */
  gitDir: string;
  /** Shared by every worktree: where the project anchor lives. */
  commonDir: string;
}

export function findGit(cwd: string, env: NodeJS.ProcessEnv = process.env): GitLocation | undefined {
  if (env.GIT_DIR) {
    const gitDir = resolve(cwd, env.GIT_DIR);
    if (!isGitDir(gitDir)) return undefined;
    const worktree = env.GIT_WORK_TREE ? resolve(cwd, env.GIT_WORK_TREE) : (findWorktreeAbove(cwd) ?? cwd);
    return { worktree, gitDir, commonDir: env.GIT_COMMON_DIR ? resolve(cwd, env.GIT_COMMON_DIR) : commonDirOf(gitDir) };
  }
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const gitDir = gitDirAt(dir);
    if (gitDir) return { worktree: dir, gitDir, commonDir: commonDirOf(gitDir) };
    if (dirname(dir) === dir) return undefined;
  }
}

function findWorktreeAbove(cwd: string): string | undefined {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (gitDirAt(dir)) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

function gitDirAt(dir: string): string | undefined {
  const dotGit = join(dir, '.git');
  const kind = statKind(dotGit);
  if (kind === 'dir') return isGitDir(dotGit) ? dotGit : undefined;
  if (kind !== 'file') return undefined;
  const match = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, 'utf8'));
  if (!match?.[1]) return undefined;
  const target = isAbsolute(match[1]) ? match[1] : resolve(dir, match[1]);
  return isGitDir(target) ? target : undefined;
}

function commonDirOf(gitDir: string): string {
  try {
    const pointer = readFileSync(join(gitDir, 'commondir'), 'utf8').trim();
    return isAbsolute(pointer) ? pointer : resolve(gitDir, pointer);
  } catch {
    return gitDir;
  }
}

/**
 * The commit HEAD names, read from the ref files as git reads them (a detached
 * HEAD, or a branch's loose ref, or its line in packed-refs); undefined when
 * only git can say: an unborn branch, a symbolic ref outside refs/heads, the
 * reftable format, anything unexpected. `tracer blame` saves a git process.
 */
export function readHeadCommit(location: GitLocation): string | undefined {
  const head = readText(join(location.gitDir, 'HEAD'))?.trim();
  if (head === undefined) return undefined;
  if (OBJECT_ID.test(head)) return head;
  const ref = /^ref: (refs\/heads\/[^\s]+)$/.exec(head)?.[1];
  if (ref === undefined || ref.split('/').includes('..')) return undefined;
  const loose = readText(join(location.commonDir, ref));
  if (loose !== undefined) return OBJECT_ID.test(loose.trim()) ? loose.trim() : undefined;
  const packed = readText(join(location.commonDir, 'packed-refs'));
  for (const line of packed?.split('\n') ?? []) {
    const [id, name] = line.split(' ');
    if (name === ref && id !== undefined && OBJECT_ID.test(id)) return id;
  }
  return undefined;
}

const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function isGitDir(dir: string): boolean {
  return statKind(join(dir, 'HEAD')) === 'file';
}

function statKind(path: string): 'file' | 'dir' | undefined {
  try {
    const stats = statSync(path);
    return stats.isDirectory() ? 'dir' : stats.isFile() ? 'file' : undefined;
  } catch {
    return undefined;
  }
}
