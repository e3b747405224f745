import { mkdirSync, rmdirSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../../files/atomic-write.js';
import { errnoCode, unwritable } from '../../files/index.js';
import type { AgentSpec } from './agents.js';
import { hasTracerHooks, withoutTracerHooks, withTracerHooks } from './hook-entries.js';
import { readInstalledFile, recordInstalledFile } from './install-record.js';
import { readJsonFile, sameJson, serializeLike, type JsonFile } from './json-file.js';

export type FileChange = 'added' | 'updated' | 'unchanged' | 'removed' | 'restored' | 'absent';

export interface AgentHookPlan {
  agent: AgentSpec;
  file: JsonFile;
  /** Bytes to write; undefined when the file stays as it is. */
  next: string | undefined;
}

/**
 * Reads and merges first, writes later: init checks every file it will touch
 * before changing any, so a malformed settings file stops the run with nothing
 * half-installed.
 */
export function planAgentHooks(agent: AgentSpec, path: string, commandFor: (event: string) => string): AgentHookPlan {
  const file = readJsonFile(path);
  const merged = withTracerHooks(file.value, path, agent, commandFor);
  const next = file.text !== undefined && sameJson(merged, file.value) ? undefined : serializeLike(merged, file.text);
  return { agent, file, next };
}

export async function applyAgentHooks(plan: AgentHookPlan, home: string): Promise<FileChange> {
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

/** Removes our entries; restores the bytes from before the install when nothing else changed since. */
export async function removeAgentHooks(agent: AgentSpec, path: string, home: string): Promise<FileChange> {
  const file = readJsonFile(path);
  if (file.text === undefined || !hasTracerHooks(file.value, agent)) return 'absent';
  const stripped = withoutTracerHooks(file.value, path, agent);
  const record = await readInstalledFile(home, path);
  const nothingLeft = Object.keys(stripped).length === 0 || sameJson(stripped, agent.skeleton);
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

function parsedOriginal(text: string): unknown {
  try {
    return text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Creates `dir` and returns the folders that did not exist, outermost first. */
function makeDirs(dir: string): string[] {
  const first = mkdirSync(dir, { recursive: true });
  if (first === undefined) return [];
  const created: string[] = [];
  for (let current = dir; ; current = dirname(current)) {
    created.unshift(current);
    if (current === first || dirname(current) === current) break;
  }
  return created;
}

function removeEmptyDirs(dirs: readonly string[]): void {
  for (const dir of [...dirs].reverse()) {
    try {
      rmdirSync(dir);
    } catch (error) {
      // Not empty (the user keeps other files there) or already gone: leave it.
      if (errnoCode(error) !== 'ENOTEMPTY' && errnoCode(error) !== 'ENOENT' && errnoCode(error) !== 'EEXIST') throw error;
      return;
    }
  }
}

export function agentFilePath(agent: AgentSpec, options: { global: boolean; worktree?: string; env: NodeJS.ProcessEnv }): string {
  return options.global ? agent.globalFile(options.env) : join(options.worktree!, agent.projectFile);
}
