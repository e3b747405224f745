// Installing an agent's hooks, in one of two kinds (src/core/agent.ts):
// entries merged into a settings file next to the user's own (hook-entries.ts),
// or files that are tracer's alone (a plugin, hook scripts), written into a
// folder the agent reads. Either way: everything is read and checked before
// anything is written, a second run changes nothing, and uninstall takes away
// only what tracer added.
import { chmodSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ExitCode, TracerError } from '../../core/errors.js';
import { writeFileAtomic } from '../../files/atomic-write.js';
import { errnoCode, unwritable } from '../../files/index.js';
import type { AgentAdapter, FilesInstall, OwnedFile } from '../../core/agent.js';
import { hasTracerHooks, withoutTracerHooks, withTracerHooks, type SettingsAgent } from './hook-entries.js';
import { makeDirs, readInstalledFile, recordInstalledFile, removeEmptyDirs } from './install-record.js';
import { readJsonFile, sameJson, serializeLike, type JsonFile } from './json-file.js';

export type FileChange = 'added' | 'updated' | 'unchanged' | 'removed' | 'restored' | 'absent';

export type AgentHookPlan = SettingsPlan | FilesPlan;

interface SettingsPlan {
  kind: 'settings';
  agent: SettingsAgent;
  file: JsonFile;
  /** Bytes to write; undefined when the file stays as it is. */
  next: string | undefined;
}

interface FilesPlan {
  kind: 'files';
  agent: AgentAdapter;
  dir: string;
  files: Array<OwnedFile & { absolute: string; existing: string | undefined }>;
}

/**
 * Reads and merges first, writes later: init checks every file it will touch
 * before changing any, so a malformed settings file stops the run with nothing
 * half-installed.
 */
export async function planAgentHooks(
  agent: AgentAdapter,
  path: string,
  commandFor: (event: string) => string,
  home: string,
): Promise<AgentHookPlan> {
  const install = agent.install;
  if (install.kind === 'settings') {
    const settingsAgent = { id: agent.id, install };
    const file = readJsonFile(path);
    const merged = withTracerHooks(file.value, path, settingsAgent, commandFor);
    const next = file.text !== undefined && sameJson(merged, file.value) ? undefined : serializeLike(merged, file.text);
    return { kind: 'settings', agent: settingsAgent, file, next };
  }
  const files = await Promise.all(
    ownedFiles(install, commandFor).map(async (file) => {
      const absolute = join(path, file.path);
      const existing = readText(absolute);
      // A file of that name that tracer did not write is the user's: never overwritten.
      if (existing !== undefined && existing !== file.text && (await readInstalledFile(home, absolute)) === undefined) {
        throw new TracerError(
          'agent_hook_exists',
          `${absolute} is already there and was not written by tracer; move it aside (or merge it by hand) and run tracer init again.`,
          { exitCode: ExitCode.localState },
        );
      }
      return { ...file, absolute, existing };
    }),
  );
  return { kind: 'files', agent, dir: path, files };
}

export async function applyAgentHooks(plan: AgentHookPlan, home: string): Promise<FileChange> {
  if (plan.kind === 'files') return applyFiles(plan, home);
  const { file, next } = plan;
  if (next === undefined) return 'unchanged';
  const hadOurs = hasTracerHooks(file.value, plan.agent);
  let createdDirs: string[] = [];
  try {
    if (file.text === undefined) createdDirs = makeDirs(dirname(file.path));
    if (!hadOurs) await recordInstalledFile(home, file.path, { original: file.text ?? null, created_dirs: createdDirs });
    await writeFileAtomic(file.path, next, { mode: 0o644, keepExistingMode: true });
  } catch (error) {
    throw unwritable(file.path, error);
  }
  return hadOurs ? 'updated' : 'added';
}

async function applyFiles(plan: FilesPlan, home: string): Promise<FileChange> {
  let added = 0;
  let updated = 0;
  for (const file of plan.files) {
    const mode = file.executable ? 0o755 : 0o644;
    if (file.existing === file.text && (!file.executable || isExecutable(file.absolute))) continue;
    try {
      const createdDirs = makeDirs(dirname(file.absolute));
      if (file.existing === undefined) await recordInstalledFile(home, file.absolute, { original: null, created_dirs: createdDirs });
      await writeFileAtomic(file.absolute, file.text, { mode });
      chmodSync(file.absolute, mode);
    } catch (error) {
      throw unwritable(file.absolute, error);
    }
    if (file.existing === undefined) added += 1;
    else updated += 1;
  }
  return updated > 0 ? 'updated' : added > 0 ? 'added' : 'unchanged';
}

/** Removes our entries; restores the bytes from before the install when nothing else changed since. */
export async function removeAgentHooks(agent: AgentAdapter, path: string, home: string): Promise<FileChange> {
  const install = agent.install;
  if (install.kind === 'files') return removeFiles(install, path, home);
  const settingsAgent = { id: agent.id, install };
  const file = readJsonFile(path);
  if (file.text === undefined || !hasTracerHooks(file.value, settingsAgent)) return 'absent';
  const stripped = withoutTracerHooks(file.value, path, settingsAgent);
  const record = await readInstalledFile(home, path);
  const nothingLeft = Object.keys(stripped).length === 0 || sameJson(stripped, install.skeleton ?? {});
  let change: FileChange;
  try {
    if (record?.original != null && sameJson(stripped, parsedOriginal(record.original))) {
      await writeFileAtomic(path, record.original, { keepExistingMode: true });
      change = 'restored';
    } else if (nothingLeft && (record === undefined || record.original === null)) {
      unlinkSync(path);
      removeEmptyDirs(record?.created_dirs ?? [dirname(path)]);
      change = 'removed';
    } else {
      await writeFileAtomic(path, serializeLike(stripped, file.text), { keepExistingMode: true });
      change = 'updated';
    }
  } catch (error) {
    throw unwritable(path, error);
  }
  await recordInstalledFile(home, path, undefined);
  return change;
}

/** Deletes the files tracer wrote (install-state.json says which), and the folders it made for them once empty. */
async function removeFiles(install: FilesInstall, dir: string, home: string): Promise<FileChange> {
  let change: FileChange = 'absent';
  const createdDirs: string[] = [];
  // Any command line gives the same file names.
  for (const file of ownedFiles(install, (event) => `tracer hook - ${event}`)) {
    const absolute = join(dir, file.path);
    const record = await readInstalledFile(home, absolute);
    if (record === undefined || readText(absolute) === undefined) continue;
    try {
      unlinkSync(absolute);
    } catch (error) {
      throw unwritable(absolute, error);
    }
    createdDirs.push(...record.created_dirs);
    await recordInstalledFile(home, absolute, undefined);
    change = 'removed';
  }
  // Deepest first: a folder is removed once the files and folders tracer made in it are gone.
  for (const created of [...new Set(createdDirs)].sort((a, b) => b.length - a.length)) removeEmptyDirs([created]);
  return change;
}

function ownedFiles(install: FilesInstall, commandFor: (event: string) => string): OwnedFile[] {
  return install.files(commandFor);
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw new TracerError(
      'agent_config_unreadable',
      `Cannot read ${path} (${errnoCode(error) ?? (error as Error).message}); check its permissions and run the command again.`,
      {
        exitCode: ExitCode.localState,
      },
    );
  }
}

function isExecutable(path: string): boolean {
  try {
    return (statSync(path).mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

function parsedOriginal(text: string): unknown {
  try {
    return text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The settings file or the folder of an agent's hooks: the working tree's, or the user's with `--global` (undefined: none). */
export function agentInstallPath(
  agent: AgentAdapter,
  options: { global: boolean; worktree?: string; env: NodeJS.ProcessEnv },
): string | undefined {
  const install = agent.install;
  if (options.global) return install.kind === 'settings' ? install.globalFile?.(options.env) : install.globalDir?.(options.env);
  return join(options.worktree!, install.kind === 'settings' ? install.projectFile : install.projectDir);
}
