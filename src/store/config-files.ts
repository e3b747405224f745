// `config.json` (global, mode 0600: it holds tokens) and `project-config.json`
// (per project). Both are plain objects; settings.ts says which keys a user may set.
import { join } from 'node:path';
import { homePaths, PRIVATE_FILE_MODE, PROJECT_STATE_FILES } from './home.js';
import { isPlainObject, readStateFile, updateStateFile, type StateFileOptions } from './state-file.js';

export interface GlobalConfig {
  /** Per-remote secrets, keyed `<project_id>::<remote_name>` (spec §2.1, §5.1). */
  tokens?: Record<string, string>;
  /** Legacy slot of spec §5.2 rule 4: written by `set globaluser`, read by nothing that syncs. */
  auth_token?: string;
  capture_detached_edits?: boolean;
  /** The post-commit AI/human bar (src/attribution/commit-summary.ts). */
  commit_summary?: boolean;
  telemetry?: { enabled?: boolean };
  [key: string]: unknown;
}

export interface ProjectConfig {
  notes?: string;
  summary?: string;
  remote?: { default?: string };
  /** The project's plugin list layer (see kernel/plugin-list.ts). */
  plugins?: string[];
  commit_summary?: boolean;
  [key: string]: unknown;
}

const globalOptions: StateFileOptions<GlobalConfig> & { mode: number } = {
  empty: () => ({}),
  isValid: (value): value is GlobalConfig => isPlainObject(value) && (value.tokens === undefined || isPlainObject(value.tokens)),
  mode: PRIVATE_FILE_MODE,
};

const projectOptions: StateFileOptions<ProjectConfig> = { empty: () => ({}) };

export const readGlobalConfig = (home: string) => readStateFile(homePaths(home).config, globalOptions);
export const updateGlobalConfig = (home: string, change: (config: GlobalConfig) => void) =>
  updateStateFile(homePaths(home).config, globalOptions, change);

export const projectConfigPath = (projectDir: string) => join(projectDir, PROJECT_STATE_FILES.config);
export const readProjectConfig = (projectDir: string) => readStateFile(projectConfigPath(projectDir), projectOptions);
export const updateProjectConfig = (projectDir: string, change: (config: ProjectConfig) => void) =>
  updateStateFile(projectConfigPath(projectDir), projectOptions, change);
