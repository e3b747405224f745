// Project identity (spec §2.2, §2.3): an opaque `project_id` kept in one line of
// `<git-common-dir>/tracer-id`, shared by every worktree. Nothing in the working
// tree encodes it, so a clone is a new project until it is linked to a remote.
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExitCode, TracerError } from '../core/errors.js';
import { findGit, type GitLocation } from './git.js';
import { homePaths, PRIVATE_FILE_MODE } from './home.js';
import { writeFileAtomicSync } from '../files/atomic-write.js';
import { errnoCode, unwritable } from '../files/index.js';
import { isPlainObject, updateStateFile } from './state-file.js';

export const ANCHOR_FILE = 'tracer-id';
const MAX_PROJECT_ID_LENGTH = 200;
const MAX_FOLDER_NAME_BYTES = 200;

export interface Project {
  id: string;
  /** `$TRACER_HOME/projects/<sanitized id>`. */
  dir: string;
  anchor: string;
  git: GitLocation;
}

export interface ProjectQuery {
  cwd: string;
  home: string;
  env?: NodeJS.ProcessEnv;
  /** Create the anchor when the repository has none yet (init, first capture). */
  create?: boolean;
}

export interface ResolvedProject extends Project {
  /** True when this call wrote the anchor. */
  created: boolean;
}

export function resolveProject(query: ProjectQuery): ResolvedProject {
  const git = findGit(query.cwd, query.env);
  if (!git) {
    throw new TracerError(
      'not_a_git_repository',
      `${query.cwd} is not inside a git repository; cd into your repository (or run git init) and try again.`,
      {
        exitCode: ExitCode.localState,
      },
    );
  }
  const anchor = join(git.commonDir, ANCHOR_FILE);
  let id = readAnchor(anchor);
  let created = false;
  if (id === undefined) {
    if (!query.create) {
      throw new TracerError('project_not_initialized', `This repository has no tracer project yet (no ${anchor}); run tracer init first.`, {
        exitCode: ExitCode.localState,
      });
    }
    ({ id, created } = createAnchor(anchor));
  }
  return { id, dir: projectDir(query.home, id), anchor, git, created };
}

/**
 * The project's folder name: slashes, backslashes and colons flattened to `_`
 * (spec §2.2), and anything else unsafe in a file name too, so the result can
 * never leave `projects/`.
 */
export function sanitizeProjectId(id: string): string {
  // Most ids are plain ASCII (the default is a UUID): they skip the Unicode-aware
  // pattern, whose first use costs every command about a millisecond to compile.
  const flat = PLAIN_ID.test(id) ? id : id.replace(/[/\\:]/g, '_').replace(/[^\p{L}\p{N}._@+=-]/gu, '_');
  if (flat === '' || /^\.+$/.test(flat)) {
    throw new TracerError('invalid_project_id', `The project id "${id}" cannot name a folder; put a different id in the tracer-id file.`, {
      exitCode: ExitCode.localState,
    });
  }
  return Buffer.byteLength(flat, 'utf8') <= MAX_FOLDER_NAME_BYTES ? flat : shortened(id, flat);
}

/**
 * A folder name is at most 255 bytes (NAME_MAX) while an id may be 200 multi-byte
 * characters: keep a readable prefix and add a digest of the whole id, so that two
 * long ids differing only at the end still get different folders.
 */
function shortened(id: string, flat: string): string {
  const suffix = `-${createHash('sha256').update(id, 'utf8').digest('hex').slice(0, 16)}`;
  let prefix = '';
  for (const character of flat) {
    if (Buffer.byteLength(prefix + character, 'utf8') > MAX_FOLDER_NAME_BYTES - suffix.length) break;
    prefix += character;
  }
  return `${prefix}${suffix}`;
}

export function projectDir(home: string, id: string): string {
  return join(homePaths(home).projects, sanitizeProjectId(id));
}

function readAnchor(anchor: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(anchor, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw new TracerError('state_unreadable', `Cannot read ${anchor} (${errnoCode(error)}); check its permissions.`, {
      exitCode: ExitCode.localState,
    });
  }
  const id = text.split('\n', 1)[0]!.trim();
  if (!isValidProjectId(id)) {
    throw new TracerError(
      'invalid_project_id',
      `${anchor} does not hold a valid project id (one line, 1 to ${MAX_PROJECT_ID_LENGTH} printable characters); restore it, or delete it and run tracer init to start a new project.`,
      { exitCode: ExitCode.localState },
    );
  }
  return id;
}

/** Characters that every id may hold as they are: the folder name is the id itself. */
const PLAIN_ID = /^[A-Za-z0-9._@+=-]+$/;

function isValidProjectId(id: string): boolean {
  if (id.length === 0 || id.length > MAX_PROJECT_ID_LENGTH) return false;
  if (!PLAIN_ID.test(id) && /[\s\p{Cc}]/u.test(id)) return false;
  try {
    sanitizeProjectId(id);
    return true;
  } catch {
    return false;
  }
}

/**
 * An exclusive atomic write (link(2) instead of rename(2)), which fails if the
 * anchor exists, so two racing first runs agree on one id and neither ever reads
 * a half-written one.
 */
function createAnchor(anchor: string): { id: string; created: boolean } {
  const id = randomUUID();
  try {
    writeFileAtomicSync(anchor, `${id}\n`, { mode: 0o644, exclusive: true });
    return { id, created: true };
  } catch (error) {
    if (errnoCode(error) === 'EEXIST') return { id: readAnchor(anchor)!, created: false };
    throw unwritable(anchor, error);
  }
}

/** `projects.json`: the registry of known projects and the working trees they were seen in. */
export interface ProjectRegistry {
  projects: Record<string, { dir: string; repo_paths: string[]; created_at: string; updated_at: string }>;
}

export async function registerProject(home: string, project: Project): Promise<void> {
  const now = new Date().toISOString();
  await updateStateFile<ProjectRegistry>(
    homePaths(home).registry,
    {
      empty: () => ({ projects: {} }),
      isValid: (v): v is ProjectRegistry => isPlainObject(v) && isPlainObject(v.projects),
      mode: PRIVATE_FILE_MODE,
    },
    (registry) => {
      const entry = (registry.projects[project.id] ??= { dir: project.dir, repo_paths: [], created_at: now, updated_at: now });
      if (!entry.repo_paths.includes(project.git.worktree)) entry.repo_paths.push(project.git.worktree);
      entry.dir = project.dir;
      entry.updated_at = now;
    },
  );
}
