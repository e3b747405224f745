// `npm test` builds first (pretest), and a clean CI clone has just built in `npm ci`'s prepare
// step: building again costs half a minute of tsc for nothing. `npm run build` ends with
// `build-stamp.mjs write`; pretest runs `build-stamp.mjs build-if-stale`, which builds only
// when a file the build reads is newer than that stamp (or there is none).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const stamp = join(root, 'dist', '.built');
/** What the build reads: the sources, its scripts, the plugin list and the compiler's settings. */
const inputs = ['src', 'scripts', 'plugins.json', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];

const mode = process.argv[2];
if (mode === 'write') writeFileSync(stamp, `${new Date().toISOString()}\n`);
else if (mode === 'build-if-stale') {
  if (stale()) {
    const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
    process.exit(build.status ?? 1);
  }
  process.stderr.write('dist/ is newer than every file the build reads: not building again (npm run build forces it).\n');
} else {
  process.stderr.write('usage: node scripts/build-stamp.mjs write|build-if-stale\n');
  process.exit(2);
}

function stale() {
  let built;
  try {
    built = statSync(stamp).mtimeMs;
  } catch {
    return true;
  }
  return inputs.some((input) => newer(join(root, input), built));
}

function newer(path, than) {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return false;
  }
  if (!stat.isDirectory()) return stat.mtimeMs > than;
  return readdirSync(path).some((name) => newer(join(path, name), than));
}
