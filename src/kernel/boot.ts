import { ExitCode, TracerError, type TracerWarning } from '../core/errors.js';
import { projectConfigPath, readProjectConfig } from '../store/config-files.js';
import { homePaths } from '../store/home.js';
import { resolveProject, type Project } from '../store/project.js';
import { Kernel, type KernelContext } from './kernel.js';
import { applyPlugins, BUILTIN_LIST_FILE, effectivePluginList, readPluginListFile, type PluginLayer } from './plugin-list.js';

/** Builds the kernel for one invocation: finds the project, reads the plugin layers, applies them. `warnings`: where the kernel's notices go. */
export async function bootKernel(
  context: Omit<KernelContext, 'project'>,
  options: { builtinOnly?: boolean; warnings?: TracerWarning[] } = {},
): Promise<Kernel> {
  const project = findInitializedProject(context);
  const layers = options.builtinOnly ? [await readPluginListFile(BUILTIN_LIST_FILE, 'builtin')] : await pluginLayers(context.home, project);
  const list = effectivePluginList(layers);
  const kernel = new Kernel({ ...context, project }, options.warnings);
  for (const warning of list.warnings) kernel.warn(warning);
  await applyPlugins(kernel, list.enabled);
  return kernel;
}

/** The three layers, in order: built-ins, the user's, the project's. */
export async function pluginLayers(home: string, project: Project | undefined): Promise<PluginLayer[]> {
  const layers = [await readPluginListFile(BUILTIN_LIST_FILE, 'builtin'), await readPluginListFile(homePaths(home).plugins, 'user')];
  if (project) {
    const config = await readProjectConfig(project.dir);
    if (config.plugins !== undefined && !(Array.isArray(config.plugins) && config.plugins.every((entry) => typeof entry === 'string'))) {
      throw new TracerError(
        'invalid_setting_value',
        `"plugins" in ${projectConfigPath(project.dir)} must be a list of strings; fix it with tracer config set plugins <list>.`,
        {
          exitCode: ExitCode.localState,
        },
      );
    }
    layers.push({ source: 'project', file: projectConfigPath(project.dir), entries: config.plugins ?? [] });
  }
  return layers;
}

/** The project of cwd when there is one; commands that need one say so themselves. */
function findInitializedProject(context: Omit<KernelContext, 'project'>): Project | undefined {
  try {
    return resolveProject({ cwd: context.cwd, home: context.home, env: context.env });
  } catch (error) {
    if (error instanceof TracerError && (error.code === 'not_a_git_repository' || error.code === 'project_not_initialized'))
      return undefined;
    throw error;
  }
}
