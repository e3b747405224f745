// What `npm run build` (scripts/build.mjs) put where: dist/meta.json holds esbuild's
// metafiles, which name the source modules in each file of dist/. Tests that
// check which modules a command loads map the files node loaded back to them.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BIN, cleanEnv } from './cli.js';

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

/**
 * The files of dist/ (and of node_modules) a run of the built binary loads, from a resolve hook in the
 * child that writes each one at once (module hooks run on a thread of their own: nothing is lost at exit).
 */
export function loadedFiles(args: readonly string[], options: { cwd: string; home: string; input?: string }): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'tracer-loaded-'));
  try {
    const log = join(dir, 'resolved.log');
    writeFileSync(
      join(dir, 'hooks.mjs'),
      `import { appendFileSync } from 'node:fs';\nexport async function resolve(s, c, next) { const r = await next(s, c); if (r.url.startsWith('file:')) appendFileSync(${JSON.stringify(log)}, r.url + '\\n'); return r; }\n`,
    );
    writeFileSync(join(dir, 'register.mjs'), "import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n");
    writeFileSync(log, '');
    const result = spawnSync(process.execPath, ['--import', pathToFileURL(join(dir, 'register.mjs')).href, BIN, ...args], {
      cwd: options.cwd,
      input: options.input ?? '',
      encoding: 'utf8',
      env: { ...cleanEnv(), TRACER_HOME: options.home, NO_COLOR: '1' },
    });
    if (result.status !== 0) throw new Error(`tracer ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
    return [
      ...new Set(
        readFileSync(log, 'utf8')
          .split('\n')
          .filter((line) => line !== ''),
      ),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
