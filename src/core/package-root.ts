// Where the package's files are, whichever way this module runs: as a source
// file under tsx (src/core/), or compiled into dist/ by the one build
// (scripts/build.mjs), where code shared by several commands lands in
// dist/chunks/. Paths are never written relative to a module's own file,
// which the build may move.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(import.meta.url);

/** The folder of tracer's package.json: the first folder up from this module that holds one. */
export const PACKAGE_ROOT = packageRoot(dirname(here));

/** Whether the program runs from its TypeScript sources (the tests, under tsx) rather than the build. */
export const FROM_SOURCE = here.endsWith('.ts');

/** The program's modules: src/ from the sources, dist/ once built. */
export const CODE_ROOT = join(PACKAGE_ROOT, FROM_SOURCE ? 'src' : 'dist');

/** The program as a command: what hooks and background runs start (with node). */
export const TRACER_BIN = join(PACKAGE_ROOT, 'bin', 'tracer.js');

/** The file name ending of a module of CODE_ROOT. */
export const MODULE_EXTENSION = FROM_SOURCE ? '.ts' : '.js';

function packageRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`No package.json above ${start}: the tracer package is incomplete; reinstall it.`);
  }
}
