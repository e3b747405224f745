// Which plugins run, and in what order (Yarn Berry's bundle list). Three layers:
// the package's own plugins.json (the built-ins), the user's
// `$TRACER_HOME/plugins.json`, and the project's `plugins` setting. List order is
// tap order. An entry is a built-in name or a module path (relative to the file
// that lists it); `!name` in a later layer switches an entry off.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ExitCode, TracerError, type TracerWarning } from '../core/errors.js';
import { PACKAGE_ROOT } from '../core/package-root.js';
import { importProgramModule, programModulePath } from '../core/program-module.js';
import { readStateFile, isPlainObject } from '../store/state-file.js';
import type { Kernel, TracerPlugin } from './kernel.js';

export type PluginSource = 'builtin' | 'user' | 'project';

export interface PluginLayer {
  source: PluginSource;
  /** The file the entries were read from. */
  file: string;
  entries: readonly string[];
}

export interface PluginEntry {
  spec: string;
  source: PluginSource;
  file: string;
}

export interface EffectivePluginList {
  enabled: PluginEntry[];
  disabled: Array<PluginEntry & { disabledBy: PluginSource; disabledIn: string }>;
  warnings: TracerWarning[];
}

/** `traces`, or `agents/gemini` for the agents' folder. */
const BUILTIN_NAME = /^(?:agents\/)?[a-z0-9][a-z0-9-]*$/;

export const BUILTIN_LIST_FILE = resolve(PACKAGE_ROOT, 'plugins.json');

export function builtinPluginPath(name: string): string | undefined {
  if (!BUILTIN_NAME.test(name)) return undefined;
  const path = programModulePath(`plugins/${name}`);
  return existsSync(path) ? path : undefined;
}

export async function readPluginListFile(file: string, source: PluginSource): Promise<PluginLayer> {
  const list = await readStateFile<{ plugins?: string[] }>(file, {
    empty: () => ({}),
    isValid: (value): value is { plugins?: string[] } =>
      isPlainObject(value) &&
      (value.plugins === undefined || (Array.isArray(value.plugins) && value.plugins.every((entry) => typeof entry === 'string'))),
  });
  return { source, file, entries: list.plugins ?? [] };
}

export function effectivePluginList(layers: readonly PluginLayer[]): EffectivePluginList {
  const result: EffectivePluginList = { enabled: [], disabled: [], warnings: [] };
  for (const layer of layers) {
    for (const raw of layer.entries) {
      const spec = raw.trim();
      if (spec.startsWith('!')) {
        const target = spec.slice(1).trim();
        const key = entryKey(target, layer.file);
        const index = result.enabled.findIndex((entry) => entryKey(entry.spec, entry.file) === key);
        if (index === -1) {
          result.warnings.push({
            code: 'plugin_not_enabled',
            message: `${layer.file} switches off "${target}", which is not enabled; check the name with tracer plugins.`,
          });
          continue;
        }
        const [entry] = result.enabled.splice(index, 1);
        result.disabled.push({ ...entry!, disabledBy: layer.source, disabledIn: layer.file });
      } else {
        const key = entryKey(spec, layer.file);
        if (result.enabled.some((entry) => entryKey(entry.spec, entry.file) === key)) continue;
        result.enabled.push({ spec, source: layer.source, file: layer.file });
        const revived = result.disabled.findIndex((entry) => entryKey(entry.spec, entry.file) === key);
        if (revived !== -1) result.disabled.splice(revived, 1);
      }
    }
  }
  return result;
}

/**
 * What an entry names: a module path means the file it resolves to from its
 * listing file, so "./x.js" in two folders is two plugins, and a later layer can
 * switch a module off by any path that reaches it.
 */
export function entryKey(spec: string, file: string): string {
  return isModulePath(spec) ? resolve(dirname(file), spec) : spec;
}

function isModulePath(spec: string): boolean {
  return spec.startsWith('.') || isAbsolute(spec);
}

/**
 * Imports every enabled plugin (in parallel: start-up time matters) and applies
 * them in list order, except the built-in agents (`agents/<id>`, plugins that
 * bring an agent and nothing else): those are imported when a command asks the
 * kernel for its agents.
 */
export async function applyPlugins(kernel: Kernel, entries: readonly PluginEntry[]): Promise<void> {
  const placed = entries.map((entry, position) => ({ entry, position }));
  const agents = placed.filter(({ entry }) => isBuiltinAgent(entry.spec));
  const now = placed.filter(({ entry }) => !isBuiltinAgent(entry.spec));
  const plugins = await Promise.all(now.map(({ entry }) => importPlugin(entry)));
  for (const [index, plugin] of plugins.entries()) await kernel.use(plugin, now[index]!.position);
  if (agents.length === 0) return;
  kernel.deferAgents(async () => {
    const loaded = await Promise.all(agents.map(({ entry }) => importPlugin(entry)));
    for (const [index, plugin] of loaded.entries()) await kernel.use(plugin, agents[index]!.position);
  });
}

function isBuiltinAgent(spec: string): boolean {
  return spec.startsWith('agents/') && BUILTIN_NAME.test(spec);
}

export async function importPlugin(entry: PluginEntry): Promise<TracerPlugin> {
  const { path, builtin } = locate(entry);
  let module: { default?: unknown };
  try {
    // A built-in is a module of the program, wherever the build put it.
    module = builtin ? await importProgramModule(`plugins/${entry.spec}`) : await import(pathToFileURL(path).href);
  } catch (error) {
    throw invalidPlugin(entry, `could not be loaded from ${path}: ${(error as Error).message}`);
  }
  let plugin = module.default;
  if (typeof plugin === 'function') plugin = new (plugin as new () => unknown)();
  if (!isPlugin(plugin))
    throw invalidPlugin(entry, 'must export by default an object (or class) with a string "name" and an "apply(kernel)" method');
  return plugin;
}

function locate(entry: PluginEntry): { path: string; builtin?: true } {
  const base = dirname(entry.file);
  if (isModulePath(entry.spec)) return { path: resolve(base, entry.spec) };
  const builtin = builtinPluginPath(entry.spec);
  if (builtin) return { path: builtin, builtin: true };
  try {
    return { path: createRequire(resolve(base, 'noop.js')).resolve(entry.spec) };
  } catch {
    throw invalidPlugin(entry, 'is neither a built-in plugin nor a module path or installed package');
  }
}

function isPlugin(value: unknown): value is TracerPlugin {
  const candidate = value as Partial<TracerPlugin> | null;
  return typeof candidate === 'object' && candidate !== null && typeof candidate.name === 'string' && typeof candidate.apply === 'function';
}

function invalidPlugin(entry: PluginEntry, why: string): TracerError {
  return new TracerError('invalid_plugin', `Plugin "${entry.spec}" listed in ${entry.file} ${why}; fix or remove that entry.`, {
    exitCode: ExitCode.localState,
  });
}
