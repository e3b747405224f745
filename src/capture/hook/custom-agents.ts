// The slow path of agent-loader.ts, for agents that no built-in plugin brings:
// the project's plugin list and the plugin importer, loaded only then.
import { TracerError } from '../../core/errors.js';
import { pluginLayers } from '../../kernel/boot.js';
import { importPlugin } from '../../kernel/plugin-list.js';
import { resolveProject, type Project } from '../../store/project.js';
import type { LoadContext } from './agent-loader.js';

export { importPlugin, pluginLayers };

export function projectOf(context: LoadContext): Project | undefined {
  try {
    return resolveProject({ cwd: context.cwd, home: context.home, env: context.env });
  } catch (error) {
    if (error instanceof TracerError) return undefined;
    throw error;
  }
}
