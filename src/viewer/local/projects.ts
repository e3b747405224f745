// The projects of a $TRACER_HOME: those in projects.json, and project folders
// the registry does not name (a registry lost or from another tool). A
// project's folder is always inside `projects/`: a registry entry pointing
// elsewhere is not followed, so no file outside the store is ever read.
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join, resolve, sep } from 'node:path';
import { homePaths } from '../../store/home.js';
import { sanitizeProjectId } from '../../store/project.js';
import type { ProjectSummary } from '../data-source.js';

export interface LocalProject {
  id: string;
  dir: string;
  repoPath: string | null;
}

const ACTIVITY_FILES = ['traces.jsonl', 'ledgers.jsonl', 'conversations.jsonl', 'session-summaries.jsonl'];

export async function listLocalProjects(home: string): Promise<LocalProject[]> {
  const paths = homePaths(home);
  const projects = new Map<string, LocalProject>();
  for (const [id, entry] of Object.entries(await readRegistry(paths.registry))) {
    const dir = safeDir(paths.projects, id, entry.dir);
    if (dir === undefined) continue;
    projects.set(id, { id, dir, repoPath: await firstFolder(entry.repo_paths) });
  }
  const known = new Set([...projects.values()].map((project) => project.dir));
  for (const name of await readdir(paths.projects).catch(() => [] as string[])) {
    const dir = join(paths.projects, name);
    if (known.has(dir) || projects.has(name) || !(await isFolder(dir))) continue;
    projects.set(name, { id: name, dir, repoPath: null });
  }
  return [...projects.values()];
}

export async function summarize(project: LocalProject): Promise<ProjectSummary> {
  let newest = 0;
  for (const file of ACTIVITY_FILES) {
    const info = await stat(join(project.dir, file)).catch(() => undefined);
    if (info && info.mtimeMs > newest) newest = info.mtimeMs;
  }
  return {
    id: project.id,
    name: project.repoPath ? basename(project.repoPath) : project.id,
    repo_path: project.repoPath,
    last_activity: newest > 0 ? new Date(newest).toISOString() : null,
  };
}

interface RegistryEntry {
  dir?: unknown;
  repo_paths?: unknown;
}

async function readRegistry(path: string): Promise<Record<string, RegistryEntry>> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as { projects?: unknown };
    const projects = parsed?.projects;
    return typeof projects === 'object' && projects !== null && !Array.isArray(projects) ? (projects as Record<string, RegistryEntry>) : {};
  } catch {
    // A missing or damaged registry still leaves the folders to list.
    return {};
  }
}

function safeDir(projectsDir: string, id: string, recorded: unknown): string | undefined {
  if (typeof recorded === 'string' && resolve(recorded).startsWith(projectsDir + sep)) return resolve(recorded);
  try {
    return join(projectsDir, sanitizeProjectId(id));
  } catch {
    return undefined;
  }
}

async function firstFolder(paths: unknown): Promise<string | null> {
  if (!Array.isArray(paths)) return null;
  for (const path of paths) if (typeof path === 'string' && (await isFolder(path))) return path;
  return null;
}

async function isFolder(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isDirectory(),
    () => false,
  );
}
