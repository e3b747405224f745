// Imports a module of the program by its name under src/ (`plugins/traces`,
// `commands/remote/list`), however the program runs: from the sources (the
// tests, under tsx), or from the build (scripts/build.mjs), where a module is a
// file of its own or part of a layer, one file holding many modules. The build
// lists where each layered module is in dist/modules.json, so that a built-in
// plugin of the kernel's layer loads no file of its own: each file node loads
// costs a command start-up time (BENCHMARKS.md, "One build").
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CODE_ROOT, FROM_SOURCE, MODULE_EXTENSION } from './package-root.js';

/** dist/modules.json: module name -> each of its exports' layer file (from dist/) and name there. */
export type ModuleTable = Record<string, Record<string, [file: string, name: string]>>;

export const MODULE_TABLE_FILE = 'modules.json';

let table: ModuleTable | undefined;

/** The module's exports, `default` included. */
export async function importProgramModule(name: string): Promise<Record<string, unknown>> {
  const layered = moduleTable()[name];
  if (!layered) return (await import(pathToFileURL(programModulePath(name)).href)) as Record<string, unknown>;
  const files = [...new Set(Object.values(layered).map(([file]) => file))];
  const layers = new Map(
    await Promise.all(
      files.map(async (file) => [file, (await import(pathToFileURL(join(CODE_ROOT, file)).href)) as Record<string, unknown>] as const),
    ),
  );
  return Object.fromEntries(Object.entries(layered).map(([own, [file, inLayer]]) => [own, layers.get(file)![inLayer]]));
}

/** The file of the module's own: its source, or its file in dist/ (for a layered module, one that re-exports it). */
export function programModulePath(name: string): string {
  return join(CODE_ROOT, `${name}${MODULE_EXTENSION}`);
}

function moduleTable(): ModuleTable {
  if (table) return table;
  if (FROM_SOURCE) return (table = {});
  try {
    return (table = JSON.parse(readFileSync(join(CODE_ROOT, MODULE_TABLE_FILE), 'utf8')) as ModuleTable);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return (table = {});
  }
}
