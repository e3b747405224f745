#!/usr/bin/env node
// Runs the compiled CLI (dist/, scripts/build.mjs), never TypeScript at run time.
let main;
try {
  ({ main } = await import('../dist/cli/main.js'));
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist')) throw error;
  process.stderr.write('tracer: the compiled program is missing; run npm install (or npm run build) in the tracer folder. (not_built)\n');
  process.exit(1);
}
// A reader that stops early (`tracer show --json | head`) closes the pipe: what is left to print has nowhere to go,
// and the command still finishes its work (a push keeps its state) rather than dying on the write.
for (const stream of [process.stdout, process.stderr])
  stream.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error;
  });
process.exitCode = await main(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
});
