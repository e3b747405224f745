import { ExitCode, TracerError } from '../core/errors.js';
import { projectConfigPath, readProjectConfig } from '../store/config-files.js';
import { homePaths } from '../store/home.js';
import { resolveProject, type Project } from '../store/project.js';
import { Kernel, type KernelContext } from './kernel.js';
import {
  applyPlugins,
  BUILTIN_LIST_FILE,
  coveredByBuiltins,
  effectivePluginList,
  readPluginListFile,
  type BuiltinPlugins,
  type PluginLayer,
} from './plugin-list.js';

/** Builds the kernel for one invocation: finds the project, reads the plugin layers, applies them. */
export async function bootKernel(context: Omit<KernelContext, 'project'>, options: { builtinOnly?: boolean } = {}): Promise<Kernel> {
  const project = findInitializedProject(context);
  const layers = options.builtinOnly ? [await readPluginListFile(BUILTIN_LIST_FILE, 'builtin')] : await pluginLayers(context.home, project);
  return build(context, project, effectivePluginList(layers));
}

/**
 * The kernel of a prebuilt module that holds the built-in plugins
 * (scripts/build-hook-bundles.mjs); undefined when an enabled entry is not one
 * of them: a plugin of the user's or the project's list shares the classes of
 * tracer/plugin (TracerError, checked with instanceof) with the CLI's modules,
 * not with the prebuilt module's copies, so the CLI must run that.
 */
export async function bootBuiltinKernel(context: Omit<KernelContext, 'project'>, builtins: BuiltinPlugins): Promise<Kernel | undefined> {
  const project = findInitializedProject(context);
  const list = effectivePluginList(await pluginLayers(context.home, project));
  return coveredByBuiltins(list.enabled, builtins) ? build(context, project, list, builtins) : undefined;
}

async function build(
  context: Omit<KernelContext, 'project'>,
  project: Project | undefined,
  list: ReturnType<typeof effectivePluginList>,
  builtins?: BuiltinPlugins,
): Promise<Kernel> {
  const kernel = new Kernel({ ...context, project });
  for (const warning of list.warnings) kernel.warn(warning);
  await applyPlugins(kernel, list.enabled, builtins);
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
