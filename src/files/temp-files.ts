import { randomBytes } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Temp files of the atomic writes (src/files/atomic-write.ts), written next to
 * their destination and renamed into place. Their names carry the writer's pid,
 * so a later writer of the same destination can tell the leftover of a process
 * that was killed mid-write (removed) from the file of one still writing (kept).
 */
const MARK = '.tmp-';

export function temporaryPath(destination: string): string {
  return `${destination}${MARK}${process.pid}-${randomBytes(4).toString('hex')}`;
}

/** Removes `<destination>.tmp-<pid>-*` files whose process no longer runs. Never fails. */
export async function removeAbandonedTemporaries(destination: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dirname(destination));
  } catch {
    return;
  }
  for (const path of abandoned(destination, names)) await rm(path, { force: true }).catch(() => undefined);
}

/** The same, for the synchronous writes (the project anchor, resolved before anything async runs). */
export function removeAbandonedTemporariesSync(destination: string): void {
  let names: string[];
  try {
    names = readdirSync(dirname(destination));
  } catch {
    return;
  }
  for (const path of abandoned(destination, names)) {
    try {
      rmSync(path, { force: true });
    } catch {
      // another writer removed it first, or it cannot be removed: the next write tries again
    }
  }
}

function abandoned(destination: string, names: readonly string[]): string[] {
  const prefix = `${basename(destination)}${MARK}`;
  const found: string[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    if (Number.isInteger(pid) && pid > 0 && processRuns(pid)) continue;
    found.push(join(dirname(destination), name));
  }
  return found;
}

function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, under another user.
    return (error as { code?: string }).code === 'EPERM';
  }
}
