// node-fetch as one module (dist/vendor/node-fetch.js), after tsc (npm run build).
// Every command that sends a request pays for loading node-fetch: as published it is
// about twenty modules (fetch-blob, formdata-polyfill, ...), 45 ms to import on the
// 2-core bench machine; bundled, 21 ms (BENCHMARKS.md, "node-fetch"). The library
// is the same, its code unchanged; src/net/http-client.ts falls back to the package
// when the bundle is not there (tests run the TypeScript sources).
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { lazyBuiltins } from './lazy-builtins.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
await build({
  absWorkingDir: root,
  stdin: { contents: "export { default } from 'node-fetch';", resolveDir: root, loader: 'js' },
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: ['node20'],
  // fetch-blob reaches for a streams polyfill only where Node has no ReadableStream (never on Node 20).
  external: ['web-streams-polyfill', 'web-streams-polyfill/*'],
  // Its CommonJS parts still call require() for Node's own modules.
  banner: { js: "import { createRequire as __tracerRequire } from 'node:module'; const require = __tracerRequire(import.meta.url);" },
  legalComments: 'inline',
  // https (with tls and crypto under it) and zlib cost a no-op push to an http:// remote about 9 ms to load, and
  // node-fetch only calls https.request for https: URLs and zlib for compressed bodies: they load on first use.
  plugins: [lazyBuiltins({ 'node:https': [], 'node:zlib': [] })],
  outfile: 'dist/vendor/node-fetch.js',
  logLevel: 'warning',
});
