import { randomBytes } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
/**
 * Temp files written next to their destination and renamed into place
 * (state files, blob cache files). Their names carry the writer's pid, so a
 * later writer of the same destination can tell the leftover of a process that
 * was killed mid-write (removed) from the file of one still writing (kept).
 */
const MARK = '.tmp-';
export function temporaryPath(destination) {
  return `${destination}${MARK}${process.pid}-${randomBytes(4).toString('hex')}`;
}
/** Removes `<destination>.tmp-<pid>-*` files whose process no longer runs. Never fails. */
export async function removeAbandonedTemporaries(destination) {
  const dir = dirname(destination);
  const prefix = `${basename(destination)}${MARK}`;
  let names;
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    if (Number.isInteger(pid) && pid > 0 && processRuns(pid)) continue;
    await rm(join(dir, name), { force: true }).catch(() => undefined);
  }
}
function processRuns(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, under another user.
    return error.code === 'EPERM';
  }
}
