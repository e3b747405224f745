// The slow path of loadAgent (run-hook.ts), for agents that no built-in plugin
// brings: the project's plugin list and the plugin importer, loaded only then.
// Lists are read as the hook reads them (listLayer): never moved aside.
import { TracerError } from '../../core/errors.js';
import { importPlugin, type PluginLayer } from '../../kernel/plugin-list.js';
import { projectConfigPath } from '../../store/config-files.js';
import { resolveProject } from '../../store/project.js';
import { listLayer } from './list-layer.js';
import type { LoadContext } from './run-hook.js';

export { importPlugin };

/** The `plugins` setting of the initialized project of the hook's folder, if there is one. */
export function projectLayer(context: LoadContext): PluginLayer | undefined {
  try {
    const project = resolveProject({ cwd: context.cwd, home: context.home, env: context.env });
    return listLayer(projectConfigPath(project.dir), 'project');
  } catch (error) {
    if (error instanceof TracerError) return undefined;
    throw error;
  }
}
