// `$TRACER_HOME/install-state.json`: for each agent settings file tracer added
// hooks to, the exact bytes it had before (null: it did not exist) and the folders
// tracer created for it. Uninstall puts those bytes back when nothing else changed
// since, so a hand-formatted file comes back byte-identical, not merely equivalent.
import { mkdirSync, rmdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { errnoCode } from '../../files/index.js';
import { isPlainObject, readStateFile, updateStateFile } from '../../store/state-file.js';

export interface InstalledFile {
  original: string | null;
  created_dirs: string[];
}

interface InstallState {
  files: Record<string, InstalledFile>;
}

const options = {
  empty: (): InstallState => ({ files: {} }),
  isValid: (value: unknown): value is InstallState => isPlainObject(value) && isPlainObject(value.files),
};

export function installStatePath(home: string): string {
  return join(home, 'install-state.json');
}

export async function readInstalledFile(home: string, path: string): Promise<InstalledFile | undefined> {
  const state = await readStateFile(installStatePath(home), options);
  return Object.hasOwn(state.files, path) ? state.files[path] : undefined;
}

export async function recordInstalledFile(home: string, path: string, record: InstalledFile | undefined): Promise<void> {
  await updateStateFile(installStatePath(home), options, (state) => {
    if (record) state.files[path] = record;
    else delete state.files[path];
  });
}

/** Creates `dir` and returns the folders that did not exist, outermost first. */
export function makeDirs(dir: string): string[] {
  const first = mkdirSync(dir, { recursive: true });
  if (first === undefined) return [];
  const created: string[] = [];
  for (let current = dir; ; current = dirname(current)) {
    created.unshift(current);
    if (current === first || dirname(current) === current) break;
  }
  return created;
}

/** Removes `dirs` (listed outermost first) innermost first, each only when empty; stops at the first that is not. */
export function removeEmptyDirs(dirs: readonly string[]): void {
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
