import { readGlobalConfig, readProjectConfig, updateGlobalConfig, updateProjectConfig } from '../../store/config-files.js';
import type { Project } from '../../store/project.js';
import type { SettingScope } from '../../store/settings.js';

/** The JSON file behind a setting scope: config.json (global) or project-config.json. */
export interface SettingsFile {
  read(): Promise<Record<string, unknown>>;
  update(change: (config: Record<string, unknown>) => void): Promise<unknown>;
}

/** `home`: $TRACER_HOME, where config.json is. */
export function settingsFile(home: string, scope: SettingScope, project: () => Project): SettingsFile {
  if (scope === 'global') {
    return { read: () => readGlobalConfig(home), update: (change) => updateGlobalConfig(home, change) };
  }
  const { dir } = project();
  return { read: () => readProjectConfig(dir), update: (change) => updateProjectConfig(dir, change) };
}
