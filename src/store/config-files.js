import { join } from 'node:path';
import { homePaths, PRIVATE_FILE_MODE, PROJECT_STATE_FILES } from './home.js';
import { isPlainObject, readStateFile, updateStateFile } from './state-file.js';
const globalOptions = {
  empty: () => ({}),
  isValid: (value) => isPlainObject(value) && (value.tokens === undefined || isPlainObject(value.tokens)),
  mode: PRIVATE_FILE_MODE,
};
const projectOptions = { empty: () => ({}) };
export const readGlobalConfig = (home) => readStateFile(homePaths(home).config, globalOptions);
export const updateGlobalConfig = (home, change) => updateStateFile(homePaths(home).config, globalOptions, change);
export const projectConfigPath = (projectDir) => join(projectDir, PROJECT_STATE_FILES.config);
export const readProjectConfig = (projectDir) => readStateFile(projectConfigPath(projectDir), projectOptions);
export const updateProjectConfig = (projectDir, change) => updateStateFile(projectConfigPath(projectDir), projectOptions, change);
