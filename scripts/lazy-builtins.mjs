// An esbuild plugin of the build (scripts/build.mjs): each named Node built-in
// becomes a small module that loads the real one on first use instead of when
// the module that imports it loads. Worth it
// for a built-in a common run never calls: a no-op push to an http:// remote
// calls none of https, zlib, crypto or child_process, and loading them cost it
// about 20 ms of a ~230 ms run (BENCHMARKS.md, "No-op push").
//
// Each function the built-in exports (its lowercase-named functions, read from
// the real module at build time) becomes one that calls the real one; the
// default import is a proxy onto the real module. A function with its own
// promise form (`util.promisify.custom`: child_process's exec and execFile
// resolve with { stdout, stderr }) keeps it, looked up on the real one: without
// it, promisify would resolve with stdout alone. A class or a constant cannot
// be loaded late behind an import: importing one by name fails the build
// (esbuild: "No matching export"), so nothing is ever silently undefined.
import { createRequire } from 'node:module';
import { promisify } from 'node:util';

/** @param {readonly string[]} names the built-ins to load late */
export function lazyBuiltins(names) {
  const require = createRequire(import.meta.url);
  const functionsOf = (name) =>
    Object.entries(require(name))
      .filter(([key, value]) => typeof value === 'function' && /^[a-z]/.test(key))
      .map(([key, value]) => ({ key, custom: typeof value[promisify.custom] === 'function' }));
  const filter = new RegExp(`^(${names.map((name) => name.replace(/[/]/g, '\\/')).join('|')})$`);
  return {
    name: 'lazy-builtins',
    setup(build) {
      build.onResolve({ filter }, (args) =>
        args.namespace === 'lazy-builtin' ? { path: args.path, external: true } : { path: args.path, namespace: 'lazy-builtin' },
      );
      build.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => ({
        contents: [
          "import { createRequire } from 'node:module';",
          'let loaded;',
          `const real = () => (loaded ??= createRequire(import.meta.url)(${JSON.stringify(args.path)}));`,
          'export default new Proxy({}, { get: (_, key) => real()[key], has: (_, key) => key in real() });',
          "const custom = Symbol.for('nodejs.util.promisify.custom');",
          ...functionsOf(args.path).flatMap(({ key, custom }) => [
            `export function ${key}(...args) { return real().${key}(...args); }`,
            ...(custom ? [`Object.defineProperty(${key}, custom, { get: () => real().${key}[custom] });`] : []),
          ]),
        ].join('\n'),
        loader: 'js',
      }));
    },
  };
}
