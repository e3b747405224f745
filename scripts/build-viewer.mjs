// The viewer's browser bundle, after tsc (npm run build): one app.js (markdown-it included) and one app.css
// under dist/viewer/assets/, served by the viewer itself, so the UI works offline and fetches nothing elsewhere.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
await build({
  absWorkingDir: root,
  entryPoints: { app: 'src/viewer/ui/main.ts' },
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['es2022'],
  minify: true,
  sourcemap: false,
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
