// One module per built-in agent (dist/hooks/<id>.js), after tsc (npm run build):
// `tracer hook <agent> <event>` runs on every tool use of every agent, and loading
// the hook's two dozen modules one by one (resolving, reading, compiling and
// linking each) was about a quarter of its CPU (BENCHMARKS.md, "Hook bundles").
// Each bundle holds the hook runner and that agent's adapter only, so a hook
// still loads one adapter whatever the number of agents; bin/tracer.js runs it
// when there is one, and the CLI's own hook path (which also reaches plugins'
// agents) otherwise. The agents are the files of src/plugins/agents/: removing
// one removes its bundle.
import { build } from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'dist', 'hooks');
rmSync(out, { recursive: true, force: true });
const agents = readdirSync(join(root, 'dist', 'plugins', 'agents'))
  .filter((file) => file.endsWith('.js'))
  .map((file) => file.slice(0, -'.js'.length));
await Promise.all(
  agents.map((id) =>
    build({
      absWorkingDir: root,
      stdin: {
        contents: [
          `import plugin from './dist/plugins/agents/${id}.js';`,
          "import { runHook } from './dist/capture/hook/run-hook.js';",
          `export function runBundledHook(event, io) { return runHook(${JSON.stringify(id)}, event, { ...io, builtins: { ${JSON.stringify(`agents/${id}`)}: plugin } }); }`,
        ].join('\n'),
        resolveDir: root,
        loader: 'js',
      },
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: ['node20'],
      // The hook path imports no package; should one ever, it stays a package, not a copy.
      packages: 'external',
      outfile: join(out, `${id}.js`),
      logLevel: 'warning',
    }),
  ),
);
