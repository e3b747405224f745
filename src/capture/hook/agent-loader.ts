// Which adapter answers `tracer hook <agent> <event>`. Agents are plugins
// (`agents/<id>` in the package's plugins.json, or a module of the user's or the
// project's plugin list), but this path runs on every tool use of the agent, so
// it never boots the kernel: a built-in agent costs the two small list files and
// its own module, whatever the number of adapters. Only an id that no enabled
// built-in has imports the module entries of the lists to find it.
import { pathToFileURL } from 'node:url';
import { homePaths } from '../../store/home.js';
import {
  BUILTIN_LIST_FILE,
  builtinPluginPath,
  effectivePluginList,
  readPluginListFile,
  type PluginEntry,
} from '../../kernel/plugin-list.js';
import { AGENT_ID, type AgentAdapter } from './adapter.js';

export interface LoadContext {
  home: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export async function loadAgent(id: string, context: LoadContext): Promise<AgentAdapter | undefined> {
  if (!AGENT_ID.test(id)) return undefined;
  const layers = [
    await readPluginListFile(BUILTIN_LIST_FILE, 'builtin'),
    await readPluginListFile(homePaths(context.home).plugins, 'user'),
  ];
  const enabled = effectivePluginList(layers).enabled;
  const spec = `agents/${id}`;
  const builtin = enabled.find((entry) => entry.spec === spec);
  if (builtin) {
    const path = builtinPluginPath(spec);
    if (path) return agentOf(await import(pathToFileURL(path).href), id);
  }
  return customAgent(id, context, enabled);
}

/** An agent brought by a module entry of the user's or the project's plugin list. */
async function customAgent(id: string, context: LoadContext, userEnabled: readonly PluginEntry[]): Promise<AgentAdapter | undefined> {
  const { importPlugin, pluginLayers, projectOf } = await import('./custom-agents.js');
  const project = projectOf(context);
  const entries = project
    ? effectivePluginList(await pluginLayers(context.home, project)).enabled
    : userEnabled.filter((entry) => entry.source !== 'builtin');
  for (const entry of entries) {
    if (entry.source === 'builtin' || builtinPluginPath(entry.spec)) continue;
    const plugin = await importPlugin(entry);
    const agent = plugin.agents?.find((candidate) => candidate.id === id);
    if (agent) return agent;
  }
  return undefined;
}

function agentOf(module: { default?: { agents?: AgentAdapter[] } }, id: string): AgentAdapter | undefined {
  return module.default?.agents?.find((agent) => agent.id === id);
}
