import { Command, Option } from 'clipanion';
import { TracerCommand } from '../cli/tracer-command.js';
import { pathExistsSync } from '../files/index.js';
import { pluginLayers } from '../kernel/boot.js';
import { effectivePluginList, type PluginSource } from '../kernel/plugin-list.js';

const SOURCE_LABEL: Record<PluginSource, string> = { builtin: 'builtin', user: 'user file', project: 'project setting' };

export class PluginsCommand extends TracerCommand {
  static override foldsSpoolFirst = false;
  static override usesKernel = true;
  static override paths = [['plugins']];
  static override usage = Command.Usage({
    category: 'Plugins',
    description: 'Show the effective plugin list and where each entry came from',
    details: `
      Plugins are read from three lists, in order: the built-ins (the package's \`plugins.json\`), the user's \`$TRACER_HOME/plugins.json\`, and the project's \`plugins\` setting (\`tracer config set plugins ...\`). An entry is a built-in name or a module path; \`!name\` in a later list switches an entry off. List order is the order plugins tap the hooks.

      Prints the enabled plugins in that order with the list each came from, what was switched off and by which list, the artifact families the plugins registered (built-in and custom), in push order, and the agents they record: each agent's id (what \`tracer init --agents\` and \`tracer hook\` take), its name, the plugin that brings it and where \`tracer init\` installs its hooks. Switching an agent's plugin off (\`!agents/<id>\`) makes \`tracer init\` refuse that id and its hooks record nothing.
    `,
    examples: [
      ['Show the plugin list', '$0 plugins'],
      ['The same as JSON', '$0 plugins --json'],
    ],
  });

  json = Option.Boolean('--json', false, { description: 'Print a JSON object instead of text' });

  async run() {
    // A plugin list that does not load is what this command helps to fix: it starts on the built-ins and says why.
    const kernel = await this.kernel({ builtinsIfBroken: true });
    const layers = await pluginLayers(kernel.context.home, kernel.context.project);
    const list = effectivePluginList(layers);
    const agentList = await kernel.loadAgents();
    // Once the agents are loaded too, kernel.plugins holds the enabled entries in list order: the i-th plugin is the i-th entry.
    const enabled = list.enabled.map((entry, index) => ({
      spec: entry.spec,
      name: kernel.plugins[index]?.name ?? entry.spec,
      source: entry.source,
      file: entry.file,
    }));
    const disabled = list.disabled.map((entry) => ({
      spec: entry.spec,
      source: entry.source,
      file: entry.file,
      disabled_by: entry.disabledBy,
      disabled_in: entry.disabledIn,
    }));
    const families = kernel.families.map((family) => ({
      name: family.name,
      plugin: family.plugin,
      manifest_key: family.manifestKey,
      follows: family.follows ?? null,
    }));
    const agents = agentList.map((agent) => ({
      id: agent.id,
      title: agent.title,
      plugin: agent.plugin,
      installs: agent.install.kind === 'settings' ? agent.install.projectFile : `${agent.install.projectDir}/`,
    }));
    if (this.json) {
      this.printJson({
        layers: layers.map((layer) => ({
          source: layer.source,
          file: layer.file,
          exists: pathExistsSync(layer.file),
          entries: layer.entries,
        })),
        enabled,
        disabled,
        families,
        agents,
        warnings: list.warnings,
      });
      return;
    }
    this.print('Enabled plugins, in hook order:');
    const width = Math.max(0, ...enabled.map((entry) => entry.spec.length));
    enabled.forEach((entry, index) => {
      const named = entry.name === entry.spec ? '' : ` (${entry.name})`;
      this.print(`  ${String(index + 1).padStart(2)}. ${entry.spec.padEnd(width)}  ${SOURCE_LABEL[entry.source]}${named}  ${entry.file}`);
    });
    if (disabled.length > 0) {
      this.print('Switched off:');
      for (const entry of disabled)
        this.print(
          `  ${entry.spec}  (${SOURCE_LABEL[entry.source]}) switched off by the ${SOURCE_LABEL[entry.disabled_by]} ${entry.disabled_in}`,
        );
    }
    this.print('Families, in push order:');
    for (const family of families) {
      const follows = family.follows ? `, follows ${family.follows}` : '';
      this.print(`  ${family.name}  (plugin ${family.plugin}, ids in synced.${family.manifest_key}${follows})`);
    }
    this.print('Agents (tracer init --agents <id>):');
    const idWidth = Math.max(0, ...agents.map((agent) => agent.id.length));
    const titleWidth = Math.max(0, ...agents.map((agent) => agent.title.length));
    const installsWidth = Math.max(0, ...agents.map((agent) => agent.installs.length));
    for (const agent of agents)
      this.print(
        `  ${agent.id.padEnd(idWidth)}  ${agent.title.padEnd(titleWidth)}  ${agent.installs.padEnd(installsWidth)}  plugin ${agent.plugin}`,
      );
    if (!kernel.context.project) this.print('(outside an initialized project: project settings not read)');
  }
}
