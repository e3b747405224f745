// Part of `npm test` (pretest): the viewer's tests drive Debian's chromium through playwright-core.
// When /usr/bin/chromium is missing (a fresh CI machine), install it with apt; when that fails, say so in one line and fail the run.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const CHROMIUM = process.env.TRACER_TEST_CHROMIUM || '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) {
  process.stderr.write(`${CHROMIUM} is missing: installing Debian's chromium for the viewer's browser tests (apt-get)...\n`);
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const apt = (args) =>
    spawnSync(asRoot ? 'apt-get' : 'sudo', asRoot ? args : ['-n', 'apt-get', ...args], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  const update = apt(['update']);
  const install = update.status === 0 ? apt(['install', '-y', '--no-install-recommends', 'chromium']) : update;
  if (install.status !== 0 || !existsSync(CHROMIUM)) {
    process.stderr.write(
      `Could not install chromium (apt-get ${update.status === 0 ? 'install' : 'update'} failed${install.error ? `: ${install.error.message}` : ''}); install it (apt-get install chromium) or set TRACER_TEST_CHROMIUM, then run npm test again.\n`,
    );
    process.exit(1);
  }
  process.stderr.write(`chromium installed at ${CHROMIUM}.\n`);
}
