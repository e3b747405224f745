#!/usr/bin/env node
// Runs the compiled CLI (dist/), never TypeScript at run time: agent hooks call this on every tool use.
const argv = process.argv.slice(2);
// `tracer hook <agent> <event>` of a built-in agent: its prebuilt module (dist/hooks/, scripts/build-hook-bundles.mjs),
// one file instead of the CLI's two dozen. Anything else, and an agent with no bundle, goes to the CLI.
if (argv.length === 3 && argv[0] === 'hook' && /^[a-z0-9][a-z0-9-]*$/.test(argv[1]) && !argv[2].startsWith('-')) {
  let bundle;
  try {
    bundle = await import(`../dist/hooks/${argv[1]}.js`);
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
  }
  if (bundle) {
    process.exitCode = await bundle.runBundledHook(argv[2], { stdin: process.stdin, env: process.env, cwd: process.cwd() });
  }
}
if (process.exitCode === undefined) {
  let main;
  try {
    ({ main } = await import('../dist/cli/main.js'));
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist')) throw error;
    process.stderr.write('tracer: the compiled program is missing; run npm install (or npm run build) in the tracer folder. (not_built)\n');
    process.exit(1);
  }
  process.exitCode = await main(argv);
}
