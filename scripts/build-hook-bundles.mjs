// One module per built-in agent (dist/hooks/<id>.js), and one for git's hooks
// (dist/hooks/git.js), and one for the spool's fold (dist/hooks/fold.js), after tsc (npm run build): `tracer hook <agent> <event>`
// runs on every tool use of every agent, the git hooks on every commit and pull,
// and loading their few dozen modules one by one (resolving, reading, compiling
// and linking each) was about a quarter of the agent hook's CPU (BENCHMARKS.md,
// "Hook bundles"). Each agent's bundle holds the hook runner and that agent's
// adapter only, so a hook still loads one adapter whatever the number of agents.
// bin/tracer.js runs the one src/cli/fast-paths.ts names, and the CLI (which also
// reaches plugins' agents) otherwise. The agents are the files of
// src/plugins/agents/: removing one removes its bundle.
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
/** A module of dist/hooks/ whose `run(argv, io)` answers the command lines cli/fast-paths.ts names for it. */
const bundle = (name, contents) =>
  build({
    absWorkingDir: root,
    stdin: { contents: contents.join('\n'), resolveDir: root, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: ['node20'],
    // The hook paths import no package up front (proper-lockfile is imported when a reconcile has work); packages stay packages.
    packages: 'external',
    outfile: join(out, `${name}.js`),
    logLevel: 'warning',
  });
await Promise.all([
  ...agents.map((id) =>
    bundle(id, [
      `import plugin from './dist/plugins/agents/${id}.js';`,
      "import { runHook } from './dist/capture/hook/run-hook.js';",
      `export const run = (argv, io) => runHook(argv[1], argv[2], { ...io, builtins: { ${JSON.stringify(`agents/${id}`)}: plugin } });`,
    ]),
  ),
  // git's post-commit, post-rewrite and post-merge hooks: on every commit and pull, after the agents' spooled events are folded in.
  bundle('git', [
    "import { runGitHookCommand } from './dist/capture/ledger/git-hook-entry.js';",
    "import { foldSpoolFirst } from './dist/capture/spool/fold-first.js';",
    'export const run = async (argv, io) => {',
    '  await foldSpoolFirst(io.env);',
    '  return runGitHookCommand(argv, { ...io, stdout: process.stdout, stderr: process.stderr });',
    '};',
  ]),
  // The fold bin/tracer-hook.sh starts in the background: spooled events of any built-in agent.
  bundle('fold', [
    ...agents.map((id, index) => `import agent${index} from './dist/plugins/agents/${id}.js';`),
    "import { runSpoolFold } from './dist/capture/spool/fold-first.js';",
    `const builtins = { ${agents.map((id, index) => `${JSON.stringify(`agents/${id}`)}: agent${index}`).join(', ')} };`,
    'export const run = (argv, io) => runSpoolFold(io.env, builtins);',
  ]),
]);
