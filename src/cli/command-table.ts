// The table of every command: its path (`remote list`), the module that
// defines it, and whether the plugin kernel must be booted to run it. It is made
// by importing every module of src/commands/ and every built-in plugin once:
// `npm run build` writes it to dist/commands.json (scripts/build.mjs), so that
// a command line imports one command's module; run from the sources (tests,
// under tsx), the registry makes it on first use.
//
// Adding a command is adding a file to src/commands/ that exports its class
// (extending TracerCommand, with `static paths`): nothing else names it.
import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CODE_ROOT, MODULE_EXTENSION } from '../core/package-root.js';

export interface CommandEntry {
  /** The words that name the command, e.g. `["remote", "list"]`. */
  path: string[];
  /** Its module, from the code root without extension: `commands/remote/list`, or a built-in plugin's `plugins/<name>`. */
  module: string;
  /** The module's export that holds the class; a plugin's commands are in its default export's `commands` instead. */
  export?: string;
  /** Whether running it boots the plugin kernel (`static usesKernel` of its class; a plugin's command always does). */
  kernel: boolean;
  /** A built-in plugin's command: the plugin kernel is booted first, and the command exists only while its plugin is enabled. */
  plugin: boolean;
}

export const TABLE_FILE = 'commands.json';

/** Every command of the core (src/commands/) and of the built-in plugins, by importing their modules. */
export async function scanCommands(root = CODE_ROOT): Promise<CommandEntry[]> {
  const entries: CommandEntry[] = [];
  const seen = new Map<unknown, string>();
  for (const file of modulesUnder(join(root, 'commands'))) {
    const module = moduleName(root, file);
    for (const [name, value] of Object.entries(await import(pathToFileURL(file).href))) {
      if (!isCommandClass(value)) continue;
      if (seen.has(value))
        throw new Error(`${name} is exported by both ${seen.get(value)} and ${module}: export each command from its own module only.`);
      seen.set(value, module);
      const kernel = (value as { usesKernel?: unknown }).usesKernel === true;
      for (const path of value.paths) entries.push({ path: [...path], module, export: name, kernel, plugin: false });
    }
  }
  for (const file of modulesUnder(join(root, 'plugins'))) {
    const plugin = ((await import(pathToFileURL(file).href)) as { default?: { commands?: unknown[] } }).default;
    const commands = (typeof plugin === 'object' && plugin?.commands) || [];
    for (const command of commands)
      if (isCommandClass(command))
        for (const path of command.paths) entries.push({ path: [...path], module: moduleName(root, file), kernel: true, plugin: true });
  }
  return entries;
}

/** A command class: clipanion's shape, with paths of its own (a subclass that inherits its parent's is not a second command). */
export function isCommandClass(value: unknown): value is (new () => unknown) & { paths: string[][] } {
  return (
    typeof value === 'function' &&
    Object.hasOwn(value, 'paths') &&
    Array.isArray((value as { paths?: unknown }).paths) &&
    typeof (value.prototype as { execute?: unknown })?.execute === 'function'
  );
}

function modulesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(MODULE_EXTENSION) && !entry.name.endsWith(`.d${MODULE_EXTENSION}`))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name))
    .sort();
}

function moduleName(root: string, file: string): string {
  return relative(root, file).slice(0, -MODULE_EXTENSION.length).split(sep).join('/');
}
