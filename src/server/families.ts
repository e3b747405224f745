// The service's families come from the same plugin lists as the client's (the
// built-in plugins.json and the user's `$TRACER_HOME/plugins.json`), plus
// `--plugins`, without a project: one family module enables a family on both sides.
import { join } from 'node:path';
import { Kernel } from '../kernel/kernel.js';
import { applyPlugins, BUILTIN_LIST_FILE, effectivePluginList, readPluginListFile } from '../kernel/plugin-list.js';
import { homePaths } from '../store/home.js';
import type { FamilyDefinition } from '../kernel/families.js';

export async function loadServiceFamilies(input: { home: string; cwd: string; env: NodeJS.ProcessEnv; extraPlugins: readonly string[] }) {
  const layers = [
    await readPluginListFile(BUILTIN_LIST_FILE, 'builtin'),
    await readPluginListFile(homePaths(input.home).plugins, 'user'),
    // Relative module paths given on the command line resolve against the working directory.
    { source: 'user' as const, file: join(input.cwd, '--plugins'), entries: input.extraPlugins },
  ];
  const list = effectivePluginList(layers);
  const kernel = new Kernel({ home: input.home, cwd: input.cwd, env: input.env });
  await applyPlugins(kernel, list.enabled);
  return {
    kernel,
    families: kernel.families as readonly FamilyDefinition[],
    warnings: [...list.warnings, ...kernel.warnings],
    plugins: kernel.plugins.map((plugin) => plugin.name),
  };
}
