// Every lock tracer takes between its processes (the spool's fold, reconcile,
// attribution-state.json, the installer): one file that names its holder.
//
// The lock is a file made whole before it appears: the holder's record is
// written under a private name and hard-linked to the lock's name, which fails
// when the lock exists, so a lock is never seen half-written and never taken
// twice. The record says who holds it: pid, the process's start time (Linux:
// field 22 of /proc/<pid>/stat, so a pid reused by another process is not
// mistaken for the holder), the boot and the host. A waiter that finds the
// holder gone on this host (no such pid, a zombie, another process under that
// pid, another boot) takes the lock over at once: a holder killed by SIGKILL,
// an OOM kill or a closed lid costs the next command one look, not a wait.
//
// Staleness is only the last resort, for what cannot be asked: a holder on
// another host (a project folder on a shared disk) or one alive but hung. The
// holder touches the file every STALE_MS / 2 while it holds it; a lock from
// another host untouched for STALE_MS, or from a live process on this host
// untouched for HUNG_MS, is taken over.
//
// Taking over is itself one at a time: under `<lock>.break` (the same kind of
// lock), the breaker reads the lock again and removes it only if it is still
// the very file (inode and record) it found dead, so a lock just taken by a
// live process is never removed. A breaker killed inside that step leaves a
// `.break` whose holder is dead, removed the same way by the next one.
//
// Known limit: two containers sharing a project folder and a host name but
// not a pid namespace would see each other's holders as gone; give them
// different host names (docker's default).
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  linkSync,
  openSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';

/** Releases the lock (nothing when it was taken over meanwhile as stale). */
export type Release = () => Promise<void>;

/** Who holds a lock, as its file says. */
export interface LockHolder {
  pid: number;
  /** The process's start time in clock ticks since boot (Linux); absent where it cannot be read. */
  start?: string;
  /** /proc/sys/kernel/random/boot_id (Linux). */
  boot?: string;
  host: string;
  /** What the holder does, for the waiter's message: "the background fold". */
  purpose?: string;
  /** When it was taken, ms since the epoch. */
  ts: number;
  /** This holding's own mark: a release removes the file only if it still holds it. */
  token: string;
}

export interface LockOptions {
  /** How long to wait for a live holder (0: not at all). A dead holder is never waited for. */
  waitMs: number;
  pollMs?: number;
  /** Written into the lock for whoever waits on it. */
  purpose?: string;
  /** Called once when a live holder has been waited for `slowAfterMs` (default 1 s): the caller says so on stderr. */
  onSlowHolder?: (holder: LockHolder) => void;
  slowAfterMs?: number;
  /** Tests only: staleness windows. */
  staleMs?: number;
  hungMs?: number;
}

/** A holder on another host that has not touched its lock for this long is gone (it touches it every half of this). */
const STALE_MS = 10_000;
/** A live holder on this host that has not touched its lock for this long is hung (its event loop blocked). */
const HUNG_MS = 120_000;
const POLL_MS = 25;
const SLOW_AFTER_MS = 1_000;
/** A `.break` whose holder cannot be asked is removed after this long: breaking takes microseconds. */
const BREAK_STALE_MS = 2_000;

/**
 * Takes the lock file `path`, waiting up to `waitMs` for a live holder;
 * undefined when it is still held then. A holder found dead is replaced at once.
 */
export async function takeLock(path: string, options: LockOptions): Promise<Release | undefined> {
  // What a take-over removes must be a lock: a path that names anything else is a caller's mistake, never removed.
  if (!path.endsWith('.lock')) throw new Error(`${path} is not a lock file's name (it must end in .lock)`);
  const pollMs = options.pollMs ?? POLL_MS;
  const began = Date.now();
  let warned = false;
  for (;;) {
    const holder = holderRecord(options.purpose);
    if (create(path, holder)) return holding(path, holder, options.staleMs ?? STALE_MS);
    const found = inspect(path, options);
    if (found.kind === 'gone') continue;
    if (found.kind === 'dead') {
      breakLock(path, found);
      continue;
    }
    const waited = Date.now() - began;
    if (waited >= options.waitMs) return undefined;
    if (!warned && found.holder && waited >= (options.slowAfterMs ?? SLOW_AFTER_MS)) {
      warned = true;
      options.onSlowHolder?.(found.holder);
    }
    await sleep(Math.min(pollMs, options.waitMs - waited));
  }
}

/** The holder of `path` when it is held by a live process (or one that cannot be asked); undefined when free or dead. */
export function liveHolder(path: string): LockHolder | undefined {
  const found = inspect(path, {});
  return found.kind === 'live' ? found.holder : undefined;
}

/** Whether the process a record names is still that process: 'unknown' on another host. */
export function holderState(holder: Pick<LockHolder, 'pid' | 'start' | 'boot' | 'host'>): 'alive' | 'dead' | 'unknown' {
  const self = identity();
  if (holder.host !== self.host) return 'unknown';
  if (holder.boot !== undefined && self.boot !== undefined && holder.boot !== self.boot) return 'dead';
  if (!Number.isSafeInteger(holder.pid) || holder.pid <= 0) return 'dead';
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: alive, another user's.
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return 'dead';
  }
  const stat = procStat(holder.pid);
  if (stat) {
    // A zombie was killed and not yet reaped by its parent: it holds nothing.
    if (stat.state === 'Z' || stat.state === 'X') return 'dead';
    if (holder.start !== undefined && stat.start !== holder.start) return 'dead';
  }
  return 'alive';
}

/** The record naming process `pid` (this process by default), for files that hand work to a pid (reconcile.pending). */
export function processRecord(pid = process.pid): Pick<LockHolder, 'pid' | 'start' | 'boot' | 'host'> {
  const self = identity();
  const start = pid === process.pid ? self.start : procStat(pid)?.start;
  return { pid, host: self.host, ...(start === undefined ? {} : { start }), ...(self.boot === undefined ? {} : { boot: self.boot }) };
}

type Inspected = { kind: 'gone' } | { kind: 'dead'; ino: number; raw: string; directory: boolean } | { kind: 'live'; holder?: LockHolder };

function inspect(path: string, options: Pick<LockOptions, 'staleMs' | 'hungMs'>): Inspected {
  let ino: number;
  let mtimeMs: number;
  let directory: boolean;
  let raw = '';
  try {
    const stat = statSync(path);
    ino = stat.ino;
    mtimeMs = stat.mtimeMs;
    directory = stat.isDirectory();
    // An older tracer's lock folder is empty: one that holds anything is no lock, never taken over.
    if (directory && readdirSync(path).length > 0) return { kind: 'live' };
    if (!directory) raw = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'gone' };
    throw error;
  }
  const age = Date.now() - mtimeMs;
  const staleMs = options.staleMs ?? STALE_MS;
  const holder = parseHolder(raw);
  // A folder is the lock of an older tracer (proper-lockfile, refreshed every 5 s); a file not a record, something half-made by hand.
  if (!holder) return age > staleMs ? { kind: 'dead', ino, raw, directory } : { kind: 'live' };
  const state = holderState(holder);
  if (state === 'dead') return { kind: 'dead', ino, raw, directory };
  if (age > (state === 'unknown' ? staleMs : (options.hungMs ?? HUNG_MS))) return { kind: 'dead', ino, raw, directory };
  return { kind: 'live', holder };
}

/** Removes the lock found dead, if it is still that same lock, one breaker at a time. */
function breakLock(path: string, found: Extract<Inspected, { kind: 'dead' }>): void {
  const guard = `${path}.break`;
  const breaker = holderRecord('taking over a dead holder');
  if (!create(guard, breaker)) {
    const other = inspect(guard, { staleMs: BREAK_STALE_MS, hungMs: BREAK_STALE_MS });
    if (other.kind === 'dead') removeIfSame(guard, other);
    return;
  }
  try {
    removeIfSame(path, found);
  } finally {
    releaseFile(guard, breaker.token);
  }
}

function removeIfSame(path: string, found: Extract<Inspected, { kind: 'dead' }>): void {
  try {
    const stat = statSync(path);
    if (stat.ino !== found.ino) return;
    if (found.directory) {
      // An older tracer's lock folder is empty: one that holds anything is not a lock, and stays.
      rmdirSync(path);
      return;
    }
    if (readFileSync(path, 'utf8') !== found.raw) return;
    rmSync(path, { force: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
  }
}

/** Makes the lock file with its record whole, or false when it exists. */
function create(path: string, holder: LockHolder): boolean {
  const text = `${JSON.stringify(holder)}\n`;
  const temporary = `${path}.${process.pid}.${holder.token}.tmp`;
  try {
    writeFileSync(temporary, text, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    throw lockError(path, error);
  }
  try {
    linkSync(temporary, path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    // A file system without hard links: an exclusive create, its record written just after.
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'ENOSYS' || code === 'EOPNOTSUPP') return createExclusive(path, text);
    throw lockError(path, error);
  } finally {
    rmSync(temporary, { force: true });
  }
}

function createExclusive(path: string, text: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw lockError(path, error);
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  return true;
}

function holding(path: string, holder: LockHolder, staleMs: number): Release {
  // Touched while held, so that a waiter on another host can tell it from a dead one; never keeps the process alive.
  const timer = setInterval(
    () => {
      try {
        const now = new Date();
        utimesSync(path, now, now);
      } catch {
        // Taken over or removed by hand: the release finds out.
      }
    },
    Math.max(50, Math.floor(staleMs / 2)),
  );
  timer.unref();
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    clearInterval(timer);
    releaseFile(path, holder.token);
  };
}

/** Removes the lock file if it is still this holding's (a holder taken over as hung must not remove its successor's). */
function releaseFile(path: string, token: string): void {
  try {
    if (parseHolder(readFileSync(path, 'utf8'))?.token === token) unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

function parseHolder(raw: string): LockHolder | undefined {
  try {
    const value = JSON.parse(raw) as Partial<LockHolder>;
    if (typeof value.pid !== 'number' || typeof value.host !== 'string' || typeof value.token !== 'string') return undefined;
    return value as LockHolder;
  } catch {
    return undefined;
  }
}

function holderRecord(purpose: string | undefined): LockHolder {
  return { ...processRecord(), ...(purpose === undefined ? {} : { purpose }), ts: Date.now(), token: randomBytes(6).toString('hex') };
}

interface Identity {
  host: string;
  boot?: string;
  start?: string;
}

let own: Identity | undefined;

function identity(): Identity {
  if (own) return own;
  let boot: string | undefined;
  try {
    boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    boot = undefined;
  }
  const start = procStat(process.pid)?.start;
  own = { host: hostname(), ...(boot === undefined ? {} : { boot }), ...(start === undefined ? {} : { start }) };
  return own;
}

/** State (field 3) and start time (field 22) of /proc/<pid>/stat; undefined without /proc or without that pid. */
function procStat(pid: number): { state: string; start: string } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces or parentheses: fields 3 on follow the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const start = fields[19];
  return state !== undefined && start !== undefined ? { state, start } : undefined;
}

function lockError(path: string, error: unknown): Error {
  const reason = error instanceof Error ? error.message : String(error);
  return new Error(`cannot take the lock ${path}: ${reason}`, { cause: error });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(1, ms)));
}
