// `npm run build`: the one build of the program (BENCHMARKS.md, "One build").
//
// esbuild compiles src/ into dist/, every source module once, so that there is
// one copy of every class at run time. Each file node loads costs a command
// start-up time (a read, a compile, the links of its imports), so what most
// command lines need is gathered into a few files, the layers:
//
// - the runtime, dist/cli/main.js: the CLI's entry and command registry, all
//   that `tracer --version` loads;
// - the CLI layer, dist/layers/cli.js: what every other command line needs
//   before its command runs (clipanion, the command base class, the state
//   files of src/store/ and src/files/, src/core/, and the plugin lists);
// - the capture layer, dist/layers/capture.js: what agents' events go through
//   (`tracer/plugin/agent`, which every agent adapter uses, the hook's recording
//   and the spool's fold), which never needs the kernel;
// - the attribution layer, dist/layers/attribution.js: what blame, show and
//   stats read ledgers and git with;
// - the kernel, dist/layers/kernel.js: what the commands that use plugins
//   need (the kernel, the built-in plugins that are not agents, the HTTP
//   protocol, and the work of push, pull, sync, status and doctor).
//
// A layer holds its roots and every module they import statically, less what
// an earlier layer holds; it exports every export of its modules under its
// own name (the build refuses two of a layer's modules exporting one name).
// Everything else is split by esbuild: each module of src/commands/ and of
// src/plugins/ is a file of its own (the command table and the plugin list
// name them by path), as are the package's `tracer/plugin`,
// `tracer/plugin/agent` and `tracer/protocol`; code several of them share
// lands once in dist/chunks/. A module that is in a layer and must also be a
// file of its own (a built-in plugin, `tracer/protocol`) gets a file that
// re-exports it from the layer. Modules import a layer by its file's path
// (esbuild writes `#tracer-<name>`, which the build then replaces).
//
// clipanion, tapable and node-fetch are compiled in (as published they are
// dozens of CommonJS files, each a cost at every start); the packages only
// some commands use (fastify, better-sqlite3, pg, listr2, fs-extra, ...) stay
// imports of node_modules. Then: the command table (dist/commands.json, from
// the built commands), the type declarations of the package's entries (tsc;
// `npm run typecheck` checks the types), and the viewer's browser bundle.
import { build } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { lazyBuiltins } from './lazy-builtins.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
/**
 * Packages imported only when called, each built as a file of its own, `dist/vendor/<file>.js`, with every package it
 * imports compiled in (as published they are dozens of files, CommonJS among them). `packages`: the imports it
 * answers; `contents`: what it exports. secretlint is one file, so its core and the profiler tracer quiets are one.
 */
const VENDOR = [
  { file: 'node-fetch', packages: ['node-fetch'], contents: "export { default } from 'node-fetch';" },
  {
    file: 'secretlint',
    // Minified: its 700 KB, most of it node-forge (the private-key rule's), parse in 37 ms instead of 48 (BENCHMARKS.md, workload 12).
    minify: true,
    patches: () => [linearDedupe()],
    packages: ['@secretlint/core', '@secretlint/secretlint-rule-preset-recommend', '@secretlint/profiler'],
    contents: [
      "export { lintSource } from '@secretlint/core';",
      "export { creator, rules } from '@secretlint/secretlint-rule-preset-recommend';",
      "export { secretLintProfiler } from '@secretlint/profiler';",
    ].join('\n'),
  },
];
/** Packages compiled in; every other package stays an import of node_modules. */
const COMPILED_IN = ['clipanion', 'typanion', 'tapable', ...VENDOR.flatMap((vendor) => vendor.packages)];

const builtinPlugins = modulesUnder('src/plugins').filter((module) => !module.startsWith('src/plugins/agents/'));
const LAYERS = [
  {
    name: 'runtime',
    file: 'dist/cli/main.js',
    roots: ['src/cli/main.ts'],
    packages: [],
  },
  {
    name: 'cli',
    file: 'dist/layers/cli.js',
    // The plugin lists are read by the agents' hooks too, which never load the kernel.
    roots: [
      'src/cli/tracer-command.ts',
      'src/cli/since.ts',
      ...modulesUnder('src/store'),
      ...modulesUnder('src/files'),
      ...modulesUnder('src/core'),
      'src/protocol/routes.ts',
      'src/kernel/plugin-list.ts',
    ],
    packages: ['clipanion'],
  },
  {
    name: 'capture',
    file: 'dist/layers/capture.js',
    // Capture's redaction (a commit link's subject too, in the git hooks) marks what it redacted and reports a failed
    // plugin as the kernel would, without the kernel.
    roots: [
      'src/plugin/agent.ts',
      'src/capture/hook/run-hook.ts',
      'src/capture/spool/fold.ts',
      'src/redact/mark.ts',
      'src/redact/plugin-failure.ts',
    ],
    packages: [],
  },
  {
    name: 'attribution',
    file: 'dist/layers/attribution.js',
    roots: [
      'src/attribution/blame.ts',
      'src/attribution/show.ts',
      'src/attribution/stats.ts',
      'src/attribution/format-blame.ts',
      'src/attribution/format-summary.ts',
    ],
    packages: [],
  },
  {
    name: 'kernel',
    file: 'dist/layers/kernel.js',
    roots: [
      'src/kernel/boot.ts',
      ...builtinPlugins,
      'src/plugin/index.ts',
      'src/protocol/index.ts',
      'src/engine/transfer-commands.ts',
      'src/engine/status.ts',
      'src/engine/doctor.ts',
    ],
    packages: [],
    // tapable.
    commonJs: true,
  },
];
/** The modules that are files of their own (loaded by path, or the package's entries). */
const ENTRIES = [
  ...modulesUnder('src/commands'),
  ...modulesUnder('src/plugins'),
  ...packageEntries(),
  // The viewer's backend beside its assets in dist/viewer/ (the spec's `viewer/`: "assets and backend").
  'src/viewer/server.ts',
  'src/viewer/app.ts',
  // Started as a worker thread by its path (src/cost/usage-workers.ts): it must be a file of its own.
  'src/cost/usage-worker.ts',
];

/** The sources of the package's entries (package.json `exports`, `./dist/<path>.js` from `src/<path>.ts`). */
function packageEntries() {
  const { exports } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return Object.values(exports)
    .map((target) => (typeof target === 'string' ? target : target.default))
    .filter((target) => target.startsWith('./dist/') && target.endsWith('.js'))
    .map((target) => `src/${target.slice('./dist/'.length, -'.js'.length)}.ts`);
}

/** For the files that compile CommonJS in (tapable, node-fetch's helpers), which still calls require() for Node's own modules. */
const REQUIRE = { js: "import { createRequire as __tracerRequire } from 'node:module'; const require = __tracerRequire(import.meta.url);" };

const common = {
  absWorkingDir: root,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: ['node20'],
  // The published ESM files of clipanion and typanion, not their CommonJS twins.
  resolveExtensions: ['.ts', '.mjs', '.js', '.json'],
  legalComments: 'inline',
  metafile: true,
  logLevel: 'warning',
};

// Built-ins a common run never calls load on first call (scripts/lazy-builtins.mjs): a no-op push hashes
// nothing and starts no process; a request to an http:// remote needs neither https nor zlib.
const lazy = () => lazyBuiltins(['node:crypto', 'node:child_process', 'node:https', 'node:zlib', 'node:os']);

rmSync(dist, { recursive: true, force: true });

// 1. What each layer holds: the static imports of its roots, followed, less the earlier layers'.
/** Source module (or compiled-in package) -> its layer. */
const layerOf = new Map();
for (const layer of LAYERS) {
  const reach = await build({
    ...common,
    entryPoints: layer.roots.filter((module) => !layerOf.has(module)),
    outdir: join(root, '.tracer-build-scan'),
    write: false,
    plugins: [externalPackagesExcept(COMPILED_IN), dynamicImportsExternal(), earlierLayersExternal()],
  });
  layer.modules = Object.keys(reach.metafile.inputs)
    .filter((input) => input.startsWith('src/') && !layerOf.has(input))
    .sort();
  for (const module of [...layer.modules, ...layer.packages]) layerOf.set(module, layer);
  layer.exports = await exportsOf(layer);
}

// 2. The layers, each one module: every export of its modules, by name; a default export as default$<module>.
const metafiles = {};
for (const layer of LAYERS) {
  const lines = [
    ...layer.modules.map((module) => {
      const names = layer.exports.get(module);
      const star = `export * from ${JSON.stringify(`./${module}`)};`;
      return names.includes('default')
        ? `${star}\nexport { default as ${defaultName(module)} } from ${JSON.stringify(`./${module}`)};`
        : star;
    }),
    ...layer.packages.map((name) => `export * from ${JSON.stringify(name)};`),
  ];
  const built = await build({
    ...common,
    stdin: { contents: lines.join('\n'), resolveDir: root, sourcefile: `${layer.name}.js`, loader: 'js' },
    outfile: join(root, layer.file),
    ...(layer.commonJs ? { banner: REQUIRE } : {}),
    plugins: [vendored(), throughLayers(layer), externalPackagesExcept(COMPILED_IN), lazy(), clipanionWithoutTty()],
  });
  metafiles[layer.name] = built.metafile;
}

// 3. The rest, split. A module of a layer that must be a file of its own is one that re-exports it.
const layered = ENTRIES.filter((module) => layerOf.has(module));
const rest = await build({
  ...common,
  entryPoints: [
    ...ENTRIES.filter((module) => !layerOf.has(module)),
    ...dynamicTargets(Object.values(metafiles)).filter((module) => !ENTRIES.includes(module)),
  ],
  outbase: 'src',
  outdir: 'dist',
  chunkNames: 'chunks/[name]-[hash]',
  splitting: true,
  plugins: [vendored(), throughLayers(undefined), externalPackagesExcept(COMPILED_IN), lazy(), clipanionWithoutTty()],
});
metafiles.rest = rest.metafile;
// A vendored package, one file of its own (its own dynamic imports compiled in): loaded by the first call that needs it.
for (const vendor of VENDOR) {
  const vendored = await build({
    ...common,
    stdin: { contents: vendor.contents, resolveDir: root, sourcefile: `${vendor.file}.js`, loader: 'js' },
    outfile: join(dist, 'vendor', `${vendor.file}.js`),
    banner: REQUIRE,
    minify: vendor.minify ?? false,
    plugins: [externalPackagesExcept(COMPILED_IN), lazy(), clipanionWithoutTty(), ...(vendor.patches?.() ?? [])],
  });
  metafiles[`vendor:${vendor.file}`] = vendored.metafile;
}
// `#tracer-<layer>` and `#tracer-vendor-<file>`, which esbuild left as they are, become the paths of the layer's
// and the vendored file from each file.
for (const file of readdirSync(dist, { recursive: true })) {
  if (!file.endsWith('.js') || file.startsWith(`viewer${sep}`)) continue;
  const path = join(dist, file);
  const text = readFileSync(path, 'utf8');
  const linked = text.replace(/(["'])#tracer-([a-z-]+)\1/g, (_, quote, name) => {
    const vendor = name.startsWith('vendor-') && VENDOR.find((candidate) => `vendor-${candidate.file}` === name);
    const layer = LAYERS.find((candidate) => candidate.name === name);
    if (!vendor && !layer) throw new Error(`${file} imports #tracer-${name}, which is no layer nor vendored file of scripts/build.mjs.`);
    const target = vendor ? join(dist, 'vendor', `${vendor.file}.js`) : join(root, layer.file);
    return `${quote}${relativeImport(dirname(path), target)}${quote}`;
  });
  if (linked !== text) writeFileSync(path, linked);
}
// Each layered module that must be a file of its own (a built-in plugin, a package entry) gets one that
// re-exports its exports from the layers that hold them (a module's `export *` may be another layer's), and an
// entry in dist/modules.json (src/core/program-module.ts), which loads it from the layers without that file.
const namespaces = await Promise.all(LAYERS.map((layer) => import(pathToFileURL(join(root, layer.file)).href)));
const reexports = { outputs: {} };
const moduleTable = {};
for (const module of layered) {
  const own = layerOf.get(module);
  const candidates = [own, ...LAYERS.filter((layer) => layer !== own)];
  const exports = {};
  for (const name of await bundledExports(module)) {
    const inLayer = name === 'default' ? defaultName(module) : name;
    const layer = candidates.find((candidate) => inLayer in namespaces[LAYERS.indexOf(candidate)]);
    if (!layer) throw new Error(`No layer exports ${module}'s "${name}" (scripts/build.mjs).`);
    exports[name] = [relative(dist, join(root, layer.file)).split(sep).join('/'), inLayer];
  }
  moduleTable[module.replace(/^src\//, '').replace(/\.ts$/, '')] = exports;
  const file = join(dist, builtPath(module));
  mkdirSync(dirname(file), { recursive: true });
  const byFile = new Map();
  for (const entry of Object.entries(exports)) byFile.set(entry[1][0], [...(byFile.get(entry[1][0]) ?? []), entry]);
  writeFileSync(
    file,
    [
      `// ${module}, which the ${own.name} layer (${own.file}) holds (scripts/build.mjs).`,
      ...[...byFile].map(
        ([layerFile, names]) =>
          `export { ${names.map(([name, [, inLayer]]) => (name === inLayer ? name : `${inLayer} as ${name}`)).join(', ')} } from '${relativeImport(dirname(file), join(dist, layerFile))}';`,
      ),
    ].join('\n'),
  );
  reexports.outputs[relative(root, file).split(sep).join('/')] = { inputs: {}, reexports: module };
}
metafiles.reexports = reexports;
writeFileSync(join(dist, 'modules.json'), `${JSON.stringify(moduleTable)}\n`);
writeFileSync(join(dist, 'meta.json'), JSON.stringify(metafiles));
for (const layer of LAYERS) await checkLayerExports(layer);

// 4. The command table: which module defines which command (src/cli/command-table.ts).
const runtime = await import(pathToFileURL(join(root, LAYERS[0].file)).href);
writeFileSync(join(dist, runtime.TABLE_FILE), `${JSON.stringify(await runtime.scanCommands(dist))}\n`);

// 5. Declarations for `tracer/plugin` and `tracer/protocol` (and the types they name). Without type checking,
// which is `npm run typecheck`'s (CI runs it): half the build's time, in every install from a clone.
const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--noCheck'], {
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

// 7. better-sqlite3's compiled addon, in dist/native/ for install.sh. An npm pack tarball bundles the production
// dependencies (bundleDependencies), but npm's packlist (10.8 and 11.19 alike) packs a bundled dependency's files by
// that package's own `files` list, and better-sqlite3's lists no build/: the tarball's better-sqlite3 has no addon. dist/ is in this
// package's `files`, so the addon travels in the tarball here, whatever npm packed it, and install.sh puts it back
// where better-sqlite3 loads it from when the bundled copy lacks it (an install with no npm cannot compile one).
const addon = join(realpathSync(join(root, 'node_modules/better-sqlite3')), 'build/Release/better_sqlite3.node');
if (existsSync(addon)) {
  mkdirSync(join(dist, 'native'), { recursive: true });
  copyFileSync(addon, join(dist, 'native/better_sqlite3.node'));
} else {
  process.stderr.write(
    `build: ${addon} is missing, so an npm pack tarball of this build carries no better-sqlite3 addon; run npm rebuild better-sqlite3 and build again\n`,
  );
}

function modulesUnder(dir) {
  return readdirSync(join(root, dir), { recursive: true })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => join(dir, file).split(sep).join('/'))
    .sort();
}

/** `src/plugins/http.ts` -> `plugins/http.js`: where a source module's own file is in dist/. */
function builtPath(module) {
  return module.replace(/^src\//, '').replace(/\.ts$/, '.js');
}

function specifierOf(layer) {
  return `#tracer-${layer.name}`;
}

function defaultName(module) {
  return `default$${module
    .replace(/^src\//, '')
    .replace(/\.ts$/, '')
    .replace(/[^A-Za-z0-9]/g, '_')}`;
}

/** A module's path from the package root, as the metafiles name it, for an import `spec` of `importer`; undefined for a package. */
function sourceOf(spec, importer) {
  if (!spec.startsWith('.')) return spec.split('/')[0].startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
  return relative(root, resolve(isAbsolute(importer) ? dirname(importer) : root, spec))
    .replace(/\.js$/, '.ts')
    .split(sep)
    .join('/');
}

/**
 * A package that tracer's own code imports stays an import of node_modules, except the packages named,
 * which are compiled in with what they import in turn.
 */
/**
 * clipanion's platform module loads Node's tty when the parser loads, only to
 * find a colour depth (about 2% of a short command's start). tracer finds its
 * own (src/cli/registry.ts) and never lets clipanion capture output, the other
 * thing the module does, so the build takes the module's browser variant,
 * which needs no built-in.
 */
function clipanionWithoutTty() {
  return {
    name: 'clipanion-without-tty',
    setup(builder) {
      builder.onResolve({ filter: /^\.\.\/platform$/ }, (args) =>
        args.importer.includes(`${sep}node_modules${sep}clipanion${sep}`)
          ? { path: join(dirname(args.importer), '..', 'platform', 'browser.mjs') }
          : undefined,
      );
    },
  };
}

/**
 * @secretlint/core drops duplicate findings by comparing each with every later one: quadratic in a text's
 * findings, which a file of tokens sent to the service's gate turns into hours. The build compiles in the same
 * filter in linear time (scripts/vendor-patches/secretlint-filter-duplicated.mjs says more).
 */
function linearDedupe() {
  const patch = join(root, 'scripts/vendor-patches/secretlint-filter-duplicated.mjs');
  return {
    name: 'secretlint-linear-dedupe',
    setup(builder) {
      let applied = false;
      builder.onLoad({ filter: /[\\/]@secretlint[\\/]core[\\/]module[\\/]messages[\\/]filter-duplicated-process\.js$/ }, () => {
        applied = true;
        return { contents: readFileSync(patch, 'utf8'), loader: 'js' };
      });
      // A secretlint that moved the module would otherwise be compiled in with the quadratic filter, silently.
      builder.onEnd(() => {
        if (!applied)
          throw new Error(
            'scripts/build.mjs: @secretlint/core has no messages/filter-duplicated-process.js to replace; see scripts/vendor-patches/.',
          );
      });
    },
  };
}

function externalPackagesExcept(compiled) {
  return {
    name: 'external-packages',
    setup(builder) {
      builder.onResolve({ filter: /^[^./#]/ }, (args) => {
        if (args.path.startsWith('node:')) return undefined;
        // fetch-blob reaches for a streams polyfill only where Node has no ReadableStream (never on Node 20).
        if (args.path.startsWith('web-streams-polyfill')) return { path: args.path, external: true };
        if (args.importer.includes(`${sep}node_modules${sep}`)) return undefined;
        return compiled.includes(sourceOf(args.path, args.importer)) ? undefined : { path: args.path, external: true };
      });
    },
  };
}

/** A vendored package, imported by tracer's own modules, is its file in dist/vendor/ (linked after the build). */
function vendored() {
  return {
    name: 'vendored',
    setup(builder) {
      builder.onResolve({ filter: /^[^./#]/ }, (args) => {
        if (args.importer.includes(`${sep}node_modules${sep}`)) return undefined;
        const vendor = VENDOR.find((candidate) => candidate.packages.includes(sourceOf(args.path, args.importer)));
        if (!vendor) return undefined;
        if (args.kind !== 'dynamic-import')
          throw new Error(`${args.importer} imports ${args.path} when it loads: a vendored package is imported when called (import()).`);
        return { path: `#tracer-vendor-${vendor.file}`, external: true };
      });
    },
  };
}

/** For step 1: what a module imports only when called is not part of its layer. */
function dynamicImportsExternal() {
  return {
    name: 'dynamic-imports-external',
    setup(builder) {
      builder.onResolve({ filter: /.*/ }, (args) => (args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined));
    },
  };
}

/** For step 1: an earlier layer's modules are not followed. */
function earlierLayersExternal() {
  return {
    name: 'earlier-layers-external',
    setup(builder) {
      builder.onResolve({ filter: /.*/ }, (args) =>
        layerOf.has(sourceOf(args.path, args.importer)) ? { path: args.path, external: true } : undefined,
      );
    },
  };
}

/**
 * How a module reaches another: a module of another layer through that layer's specifier (or, building
 * `own`, of its own layer, compiled in); a module outside every layer, imported by a layer only when
 * called, through its own file of step 3; a vendored package through its file in dist/vendor/.
 */
function throughLayers(own) {
  return {
    name: 'through-layers',
    setup(builder) {
      builder.onResolve({ filter: /^#tracer-/ }, (args) => ({ path: args.path, external: true }));
      builder.onResolve({ filter: /.*/ }, (args) => {
        if (args.importer.includes(`${sep}node_modules${sep}`) && args.path !== 'typanion') return undefined;
        const module = sourceOf(args.path, args.importer);
        const layer = layerOf.get(module);
        if (layer && layer !== own) return { path: specifierOf(layer), external: true };
        if (!own || layer === own || args.kind !== 'dynamic-import') return undefined;
        const from = dirname(join(root, own.file));
        // clipanion imports typanion when a command declares a `schema` (none does): it would be the runtime's largest part.
        if (module === 'typanion') return { path: 'typanion', external: true };
        if (!module.startsWith('src/')) return undefined;
        return { path: relativeImport(from, join(dist, builtPath(module))), external: true, pluginData: { module } };
      });
    },
  };
}

/**
 * A layer is one module, so its modules' exports share one namespace: two of them exporting one name (not
 * the same one re-exported) would leave it to neither. The build refuses it, naming them.
 */
async function checkLayerExports(layer) {
  const namespace = await import(pathToFileURL(join(root, layer.file)).href);
  const lost = [...layer.exports].flatMap(([module, names]) =>
    names.filter((name) => name !== 'default' && !(name in namespace)).map((name) => [name, module]),
  );
  if (lost.length > 0) {
    const [name] = lost[0];
    const modules = lost.filter(([other]) => other === name).map(([, module]) => module);
    throw new Error(
      `${modules.join(' and ')} export different things named "${name}", and both are in the ${layer.name} layer (scripts/build.mjs): rename one.`,
    );
  }
}

function relativeImport(from, to) {
  const path = relative(from, to).split(sep).join('/');
  return path.startsWith('.') ? path : `./${path}`;
}

/** The source modules the layers import only when called, each a file of its own in step 3. */
function dynamicTargets(layerMetafiles) {
  const targets = new Set();
  for (const [layer, metafile] of LAYERS.map((layer, index) => [layer, layerMetafiles[index]]))
    for (const input of Object.values(metafile.inputs))
      for (const imported of input.imports)
        if (imported.kind === 'dynamic-import' && imported.external && imported.path.startsWith('.')) {
          const built = relative(dist, resolve(dirname(join(root, layer.file)), imported.path))
            .split(sep)
            .join('/');
          if (!built.startsWith('vendor/')) targets.add(`src/${built.replace(/\.js$/, '.ts')}`);
        }
  return [...targets].sort();
}

/** A module's exports, by name, those of its `export *` included. */
async function bundledExports(module) {
  const listed = await build({
    ...common,
    entryPoints: [module],
    write: false,
    outdir: join(root, '.tracer-build-scan'),
    plugins: [externalPackagesExcept(COMPILED_IN)],
  });
  return Object.values(listed.metafile.outputs).find((output) => output.entryPoint === module).exports;
}

/** Each module's own exports, by name (an `export *` is its target's). */
async function exportsOf(layer) {
  const listed = await build({
    ...common,
    entryPoints: layer.modules,
    bundle: false,
    write: false,
    outdir: join(root, '.tracer-build-scan'),
    plugins: [],
  });
  const exports = new Map(Object.values(listed.metafile.outputs).map((output) => [output.entryPoint, output.exports]));
  for (const name of layer.packages) {
    const reexport = await build({
      ...common,
      stdin: { contents: `export * from '${name}';`, resolveDir: root, loader: 'js' },
      write: false,
      outfile: join(root, '.tracer-build-scan', `${name}.js`),
      plugins: [],
    });
    exports.set(name, Object.values(reexport.metafile.outputs)[0].exports);
  }
  return exports;
}
