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
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { lazyBuiltins } from './lazy-builtins.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'dist', 'hooks');
rmSync(out, { recursive: true, force: true });
const agents = readdirSync(join(root, 'dist', 'plugins', 'agents'))
  .filter((file) => file.endsWith('.js'))
  .map((file) => file.slice(0, -'.js'.length));
/** A module of dist/hooks/ whose `run(argv, io)` answers the command lines cli/fast-paths.ts names for it. */
/** `plugins` and `banner`: esbuild's, for the module that needs them (transfer). */
const bundle = (name, contents, plugins = [], banner = undefined) =>
  build({
    plugins: [transcriptReadersOutside(), ...plugins],
    banner,
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
// The built-in plugins that are not agents, as plugins.json lists them: a bare push, pull or sync boots them all.
const plugins = JSON.parse(readFileSync(join(root, 'plugins.json'), 'utf8')).plugins.filter(
  (name) => !name.startsWith('agents/') && existsSync(join(root, 'dist', 'plugins', `${name}.js`)),
);
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
  // `tracer push`, `pull` or `sync` alone, as agents' and git's hooks and schedulers run them. The CLI's
  // own modules are loaded at run time (a URL esbuild leaves alone) when the plugin list names another plugin.
  bundle(
    'transfer',
    [
      ...plugins.map((name, index) => `import * as plugin${index} from './dist/plugins/${name}.js';`),
      "import { bareMain } from './dist/cli/bare-entry.js';",
      "import { spoolPending } from './dist/capture/spool/pending.js';",
      "import { tracerHome } from './dist/store/home.js';",
      `const builtins = { ${plugins.map((name, index) => `${JSON.stringify(name)}: plugin${index}`).join(', ')} };`,
      'const unbundled = (path) => import(new URL(path, import.meta.url).href);',
      'export const run = async (argv, io) => {',
      '  if (spoolPending(tracerHome(io.env))) await (await unbundled("../capture/spool/fold-first.js")).foldSpoolFirst(io.env);',
      '  return bareMain(argv, { builtins, unbundled: async () => (await unbundled("../cli/main.js")).main(argv) });',
      '};',
    ],
    // A push or pull with nothing to send or hash starts no process and hashes nothing.
    [
      lazyBuiltins({ 'node:crypto': ['createHash', 'randomBytes', 'randomUUID'], 'node:child_process': ['execFile', 'spawn'] }),
      bundledTapable(),
    ],
    { js: "import { createRequire as __tracerRequire } from 'node:module'; const require = __tracerRequire(import.meta.url);" },
  ),
  // The fold bin/tracer-hook.sh starts in the background: spooled events of any built-in agent.
  bundle('fold', [
    ...agents.map((id, index) => `import agent${index} from './dist/plugins/agents/${id}.js';`),
    "import { runSpoolFold } from './dist/capture/spool/fold-first.js';",
    `const builtins = { ${agents.map((id, index) => `${JSON.stringify(`agents/${id}`)}: agent${index}`).join(', ')} };`,
    'export const run = (argv, io) => runSpoolFold(io.env, builtins);',
  ]),
]);

/**
 * An agent adapter imports its transcript reader on first use
 * (`import('./transcripts/<id>.js')`), which a hook never makes: the reader
 * stays a module of its own beside the adapter, not code in every hook bundle.
 */
function transcriptReadersOutside() {
  return {
    name: 'transcript-readers-outside',
    setup(build) {
      build.onResolve({ filter: /^\.\/transcripts\/[a-z0-9-]+\.js$/ }, (args) =>
        /[\\/]dist[\\/]plugins[\\/]agents$/.test(args.resolveDir)
          ? { path: `../plugins/agents/${args.path.slice(2)}`, external: true }
          : undefined,
      );
    },
  };
}

/**
 * tapable inside the transfer module. src/kernel/hooks.ts requires four of its
 * files at run time (createRequire: imported from ESM, its CommonJS would first
 * be scanned by the loader), so esbuild does not see them and a push loaded six
 * CommonJS files, ~6 ms. Here those requires are plain ones esbuild bundles
 * (with the banner's `require` for tapable's own `require('util')`). The copy is
 * the module's own: it runs only when every plugin is a built-in one.
 */
function bundledTapable() {
  const resolve = createRequire(join(root, 'package.json')).resolve;
  return {
    name: 'bundled-tapable',
    setup(build) {
      build.onResolve({ filter: /^tapable\// }, (args) => ({ path: resolve(args.path) }));
      build.onLoad({ filter: /dist[\\/]kernel[\\/]hooks\.js$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        if (!source.includes('requireTapable('))
          throw new Error(`${args.path} no longer requires tapable through requireTapable(): update bundledTapable()`);
        return { contents: source.replaceAll('requireTapable(', 'require('), loader: 'js' };
      });
    },
  };
}
