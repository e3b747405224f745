#!/usr/bin/env node
// Runs the compiled CLI (dist/), never TypeScript at run time: agent hooks call this on every tool use.
const argv = process.argv.slice(2);
let fastPaths;
try {
  fastPaths = await import('../dist/cli/fast-paths.js');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist')) throw error;
  process.stderr.write('tracer: the compiled program is missing; run npm install (or npm run build) in the tracer folder. (not_built)\n');
  process.exit(1);
}
// An agent's hook or git's, answered by one prebuilt module (dist/hooks/, scripts/build-hook-bundles.mjs)
// instead of the CLI's few dozen; without one (a plugin's own agent), the CLI answers.
const bundled = fastPaths.bundleFor(argv);
let bundle;
if (bundled) {
  try {
    bundle = await import(`../dist/hooks/${bundled}`);
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
  }
}
if (bundle) {
  process.exitCode = await bundle.run(argv, { stdin: process.stdin, env: process.env, cwd: process.cwd() });
} else {
  const { main } = await import('../dist/cli/main.js');
  process.exitCode = await main(argv);
}
