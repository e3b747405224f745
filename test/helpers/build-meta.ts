// What `npm run build` (scripts/build.mjs) put where: dist/meta.json holds esbuild's
// metafiles, which name the source modules in each file of dist/. Tests that
// check which modules a command loads map the files node loaded back to them.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Metafile {
  outputs: Record<string, { inputs: Record<string, unknown>; entryPoint?: string }>;
}

/** Every output file of the build (from the package root, `dist/...`) and the source modules and packages' files it holds. */
export function buildOutputs(): Map<string, string[]> {
  const meta = JSON.parse(readFileSync(join(ROOT, 'dist', 'meta.json'), 'utf8')) as Record<string, Metafile>;
  const outputs = new Map<string, string[]>();
  for (const metafile of Object.values(meta))
    for (const [file, output] of Object.entries(metafile.outputs)) if (file.endsWith('.js')) outputs.set(file, Object.keys(output.inputs));
  return outputs;
}

/** The source modules (and packages' files) held by the files at these URLs. */
export function modulesIn(urls: readonly string[]): string[] {
  const outputs = buildOutputs();
  return urls.flatMap((url) => outputs.get(relative(ROOT, fileURLToPath(url))) ?? []);
}
