// `npm run build`: the one build of the program (BENCHMARKS.md, "One build").
//
// esbuild compiles src/ into dist/, every source module once, so that there is
// one copy of every class at run time. Two outputs share the work:
//
// - dist/cli/main.js, the runtime: what every command line needs before its
//   command runs (the CLI's entry and command registry, the command base class,
//   clipanion, and the state files: src/store/ and src/files/, with what they
//   import) in one module, since each module node loads costs start-up time.
// - Everything else with code splitting: each module of src/commands/ and
//   src/plugins/ is a file of its own (the command table and the plugin list
//   name them by path), as are the package's `tracer/plugin`,
//   `tracer/plugin/agent` and `tracer/protocol`; code several of them share
//   lands once in dist/chunks/. Their imports of runtime modules are imports of
//   dist/cli/main.js (package.json "imports": `#tracer-runtime`).
//
// clipanion, typanion, tapable and node-fetch are compiled in (as published
// they are dozens of CommonJS files, each a cost at every start); the packages
// only some commands use (fastify, better-sqlite3, pg, listr2, fs-extra, ...)
// stay imports of node_modules. Then: the command table (dist/commands.json,
// from the built commands), the type declarations of the package's entries
// (tsc, which also type-checks), and the viewer's browser bundle.
import { build } from 'esbuild';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { lazyBuiltins } from './lazy-builtins.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
/** Packages compiled in; every other package stays an import of node_modules. */
const COMPILED_IN = ['clipanion', 'typanion', 'tapable', 'node-fetch'];
/** What the runtime holds: these modules and every module they import (statically). */
const RUNTIME_ROOTS = ['src/cli/main.ts', 'src/cli/tracer-command.ts', ...modulesUnder('src/store'), ...modulesUnder('src/files')];
/** How modules outside the runtime import it (package.json "imports"). */
const RUNTIME_SPECIFIER = '#tracer-runtime';
const RUNTIME_FILE = join(dist, 'cli', 'main.js');

const common = {
  absWorkingDir: root,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: ['node20'],
  // The published ESM files of clipanion and typanion, not their CommonJS twins.
  resolveExtensions: ['.ts', '.mjs', '.js', '.json'],
  // tapable's CommonJS still calls require() for Node's own modules.
  banner: { js: "import { createRequire as __tracerRequire } from 'node:module'; const require = __tracerRequire(import.meta.url);" },
  legalComments: 'inline',
  metafile: true,
  logLevel: 'warning',
};

// Built-ins a common run never calls load on first call (scripts/lazy-builtins.mjs): a no-op push hashes
// nothing and starts no process; a request to an http:// remote needs neither https nor zlib.
const lazy = () =>
  lazyBuiltins({
    'node:crypto': ['createHash', 'randomBytes', 'randomUUID', 'timingSafeEqual'],
    'node:child_process': ['execFile', 'execFileSync', 'spawn'],
    'node:https': [],
    'node:zlib': [],
  });

rmSync(dist, { recursive: true, force: true });

// 1. Which modules the runtime holds: the static imports of its roots, followed (dynamic imports are not).
const reach = await build({
  ...common,
  entryPoints: RUNTIME_ROOTS,
  outdir: join(root, '.tracer-build-scan'),
  write: false,
  plugins: [externalPackagesExcept(COMPILED_IN), dynamicImportsExternal()],
});
const runtimeModules = Object.keys(reach.metafile.inputs)
  .filter((input) => input.startsWith('src/'))
  .sort();
const RUNTIME_PACKAGES = ['clipanion'];
await checkRuntimeExports();

// 2. The runtime: every runtime module's exports, main() among them, in one module.
const runtime = await build({
  ...common,
  stdin: {
    contents: [...runtimeModules.map((module) => `./${module}`), ...RUNTIME_PACKAGES]
      .map((module) => `export * from ${JSON.stringify(module)};`)
      .join('\n'),
    resolveDir: root,
    sourcefile: 'runtime.js',
    loader: 'js',
  },
  outfile: RUNTIME_FILE,
  plugins: [externalPackagesExcept(COMPILED_IN), outsideRuntime(new Set(runtimeModules)), lazy()],
});

// 3. The rest, split; modules the runtime imports dynamically are entries too (outsideRuntime() points at them).
const rest = await build({
  ...common,
  entryPoints: [
    ...modulesUnder('src/commands'),
    ...modulesUnder('src/plugins'),
    'src/plugin/index.ts',
    'src/plugin/agent.ts',
    'src/protocol/index.ts',
    ...dynamicTargetsOf(runtime.metafile),
  ],
  outbase: 'src',
  outdir: 'dist',
  chunkNames: 'chunks/[name]-[hash]',
  splitting: true,
  plugins: [throughRuntime(new Set([...runtimeModules, ...RUNTIME_PACKAGES])), externalPackagesExcept(COMPILED_IN), lazy()],
});
writeFileSync(join(dist, 'meta.json'), JSON.stringify({ runtime: runtime.metafile, rest: rest.metafile }));

// 4. The command table: which module defines which command (src/cli/command-table.ts).
const table = await import(pathToFileURL(RUNTIME_FILE).href);
writeFileSync(join(dist, table.TABLE_FILE), `${JSON.stringify(await table.scanCommands(dist))}\n`);

// 5. Declarations for `tracer/plugin` and `tracer/protocol` (and the types they name); tsc type-checks on the way.
const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
  cwd: root,
  stdio: 'inherit',
});
if (tsc.status !== 0) process.exit(tsc.status ?? 1);

// 6. The viewer's browser bundle: one app.js (markdown-it included) and one app.css under dist/viewer/assets/,
// served by the viewer itself, so the UI works offline and fetches nothing elsewhere.
await build({
  absWorkingDir: root,
  entryPoints: { app: 'src/viewer/ui/main.ts' },
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['es2022'],
  minify: true,
  legalComments: 'none',
  outdir: 'dist/viewer/assets',
  logLevel: 'warning',
});
await build({
  absWorkingDir: root,
  entryPoints: { app: 'src/viewer/ui/style.css' },
  bundle: true,
  minify: true,
  outdir: 'dist/viewer/assets',
  logLevel: 'warning',
});

function modulesUnder(dir) {
  return readdirSync(join(root, dir), { recursive: true })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(dir, file).split(sep).join('/'))
    .sort();
}

/** A module's path from the package root, as the metafiles name it, for an import `spec` of `importer`; undefined for a package. */
function sourceOf(spec, importer) {
  if (!spec.startsWith('.')) return undefined;
  return relative(root, resolve(dirname(importer), spec))
    .replace(/\.js$/, '.ts')
    .split(sep)
    .join('/');
}

/**
 * A package that tracer's own code imports stays an import of node_modules, except the packages named,
 * which are compiled in with what they import in turn.
 */
function externalPackagesExcept(compiled) {
  return {
    name: 'external-packages',
    setup(builder) {
      builder.onResolve({ filter: /^[^./#]/ }, (args) => {
        if (args.path.startsWith('node:')) return undefined;
        // fetch-blob reaches for a streams polyfill only where Node has no ReadableStream (never on Node 20).
        if (args.path.startsWith('web-streams-polyfill')) return { path: args.path, external: true };
        if (args.importer.includes(`${sep}node_modules${sep}`)) return undefined;
        const name = args.path.startsWith('@') ? args.path.split('/').slice(0, 2).join('/') : args.path.split('/')[0];
        return compiled.includes(name) ? undefined : { path: args.path, external: true };
      });
    },
  };
}

/** For the scan of step 1: what a module imports only when called is not part of the runtime. */
function dynamicImportsExternal() {
  return {
    name: 'dynamic-imports-external',
    setup(builder) {
      builder.onResolve({ filter: /.*/ }, (args) => (args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined));
    },
  };
}

/** In the runtime: a dynamic import of a module outside it loads that module's own file of step 3. */
function outsideRuntime(ids) {
  return {
    name: 'outside-runtime',
    setup(builder) {
      // clipanion imports typanion when a command declares a `schema` (none does): it would be the runtime's largest part.
      builder.onResolve({ filter: /^typanion$/ }, (args) =>
        args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined,
      );
      builder.onResolve({ filter: /^\./ }, (args) => {
        const source = sourceOf(args.path, args.importer);
        if (args.kind !== 'dynamic-import' || !source || ids.has(source)) return undefined;
        const built = join(dist, source.replace(/^src\//, '').replace(/\.ts$/, '.js'));
        return { path: `./${relative(dirname(RUNTIME_FILE), built).split(sep).join('/')}`, external: true, pluginData: { source } };
      });
    },
  };
}

/** The modules the runtime imports dynamically (step 3 builds each as an entry, at the path outsideRuntime() named). */
function dynamicTargetsOf(metafile) {
  const targets = new Set();
  for (const input of Object.values(metafile.inputs))
    for (const imported of input.imports)
      if (imported.kind === 'dynamic-import' && imported.external && imported.path.startsWith('.'))
        targets.add(
          relative(root, resolve(dirname(RUNTIME_FILE), imported.path))
            .replace(/^dist\//, 'src/')
            .replace(/\.js$/, '.ts'),
        );
  return [...targets].sort();
}

/** Outside the runtime: an import of a runtime module (or of clipanion) is an import of the runtime's one copy. */
function throughRuntime(modules) {
  return {
    name: 'through-runtime',
    setup(builder) {
      builder.onResolve({ filter: /.*/ }, (args) => {
        const module = modules.has(args.path) ? args.path : sourceOf(args.path, args.importer);
        return module && modules.has(module) ? { path: RUNTIME_SPECIFIER, external: true } : undefined;
      });
    },
  };
}

/**
 * The runtime is one module, so its modules' exports share one namespace: two of them exporting the same
 * name would leave the name to neither. The build refuses it, naming both; a default export likewise.
 */
async function checkRuntimeExports() {
  const listed = await build({
    ...common,
    entryPoints: runtimeModules,
    bundle: false,
    write: false,
    outdir: join(root, '.tracer-build-scan'),
    plugins: [],
  });
  const owners = new Map();
  const own = (names, module) => {
    for (const name of names) {
      if (name === 'default')
        throw new Error(`${module} has a default export, which the runtime (scripts/build.mjs) cannot hold: export it by name.`);
      if (owners.has(name))
        throw new Error(
          `${owners.get(name)} and ${module} both export "${name}", and both are in the runtime (scripts/build.mjs): rename one.`,
        );
      owners.set(name, module);
    }
  };
  for (const output of Object.values(listed.metafile.outputs)) own(output.exports, output.entryPoint);
  for (const name of RUNTIME_PACKAGES) {
    const reexport = await build({
      ...common,
      stdin: { contents: `export * from '${name}';`, resolveDir: root, loader: 'js' },
      write: false,
      outfile: join(root, '.tracer-build-scan', `${name}.js`),
      plugins: [],
    });
    own(Object.values(reexport.metafile.outputs)[0].exports, name);
  }
}
