// Folds the hook's spool into traces.jsonl: every event exactly once, in the
// order the agents reported them, whoever folds and whenever it is killed.
//
// bin/tracer-hook.sh writes one entry per event and starts `tracer hook
// --fold` in the background; every other tracer command folds first too
// (spoolPending() says when there is anything), so a command that reads
// traces sees every event a hook has returned from.
//
// Exactly once: an entry's trace row is made once (its `ts` is the entry's
// time, its written lines read back from the files as they stand), saved as
// `<entry>.row` before it is appended, and the entry is removed after. A fold
// killed in between finds the `.row` and appends that same row, unless the
// file's end already holds its id. Only a summary may then be appended twice,
// and session-summaries.jsonl keeps the latest per conversation anyway.
//
// One fold at a time: store/file-lock.ts's lock in the spool folder, which
// names its holder, so a fold killed while holding it is taken over at once.
// The background fold does not wait for it; it leaves its entry to the
// holder, which looks again once it has let go of the lock.
import { closeSync, existsSync, fstatSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicSync } from '../../files/atomic-write.js';
import { takeLock, type LockHolder, type Release } from '../../store/file-lock.js';
import { appendRecord } from '../../store/jsonl.js';
import { logHookFailure } from '../hook/error-log.js';
import { recordEvent, type TraceWriter } from '../hook/run-hook.js';
import type { TraceRecord } from '../trace-record.js';
import { entryEnvironment, parseSpoolEntry, type SpoolEntry } from './entry.js';
import { ENTRY_SUFFIX, FOLD_LOCK, GIT_AGENT, GIT_ENTRY_SUFFIX, spoolDir } from './pending.js';

const LOCK_POLL_MS = 25;
/** How far back from the end of traces.jsonl an interrupted fold's row is looked for. */
const TAIL_BYTES = 1024 * 1024;
/** An entry the hook never finished writing (killed mid-payload) is removed once this old. */
const TORN_ENTRY_MAX_AGE_MS = 60 * 60_000;

export interface FoldOptions {
  home: string;
  env: NodeJS.ProcessEnv;
  /** How long to wait for another fold to finish: a command waits, so that it reads every event; the hook's background fold does not. */
  waitMs: number;
  /** Called once when a live fold has held the lock for a second. */
  onSlowHolder?: (holder: LockHolder) => void;
}

export interface FoldReport {
  folded: number;
  /** Entries left for a later fold: the lock was held past waitMs, or a row could not be written. */
  left: number;
}

export async function foldSpool(options: FoldOptions): Promise<FoldReport> {
  const dir = spoolDir(options.home);
  const report: FoldReport = { folded: 0, left: 0 };
  for (let wait = options.waitMs; entriesOf(dir).length > 0; wait = 0) {
    const release = await lock(dir, wait, options.onSlowHolder);
    if (!release) break;
    try {
      const stopped = await foldEntries(dir, options, report);
      if (stopped) break;
    } finally {
      await release();
    }
  }
  report.left = entriesOf(dir).length;
  return report;
}

/** true when an entry could not be folded and must wait for a later fold (the ones after it with it, to keep their order). */
async function foldEntries(dir: string, options: FoldOptions, report: FoldReport): Promise<boolean> {
  removeLeftovers(dir);
  for (const entry of entriesOf(dir)) {
    if ((await foldEntry(join(dir, entry.name), entry.mtimeMs, options)) === 'retry') return true;
    report.folded += 1;
  }
  return false;
}

async function foldEntry(path: string, mtimeMs: number, options: FoldOptions): Promise<'done' | 'retry'> {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return 'done'; // folded and removed by a fold whose lock had gone stale
  }
  let entry = parseSpoolEntry(bytes);
  if (path.endsWith(GIT_ENTRY_SUFFIX)) entry = await wholeGitEntry(path, entry, mtimeMs);
  if (!entry) {
    logHookFailure(
      options.home,
      { agent: 'spool', event: 'fold' },
      {
        code: 'invalid_spool_entry',
        message: `${path} is not an event bin/tracer-hook.sh wrote; it was removed.`,
      },
    );
    rmSync(path, { force: true });
    return 'done';
  }
  if (entry.agent === GIT_AGENT) {
    // A commit, rewrite or merge git's hook spooled: its ledger is made now, after every event spooled before it.
    const { foldGitEntry } = await import('../ledger/spooled-git.js');
    await foldGitEntry(entry, entryEnvironment(entry, options.home, options.env));
    rmSync(path, { force: true });
    return 'done';
  }
  const journal = `${path}.row`;
  const result = await recordEvent(
    entry.agent,
    entry.event,
    entry.payload,
    { env: entryEnvironment(entry, options.home, options.env), cwd: entry.cwd },
    { ts: new Date(mtimeMs).toISOString(), trace: writerFor(journal) },
  );
  if (result === 'done') {
    rmSync(path, { force: true });
    rmSync(journal, { force: true });
  }
  return result;
}

/** How long a git entry found cut short is read again: post-commit writes its few bytes in place, in one write. */
const TORN_GIT_ENTRY_WAIT_MS = 2_000;

/** The entry once its writer has finished it; undefined when it stays cut short (its hook was killed while writing). */
async function wholeGitEntry(path: string, entry: SpoolEntry | undefined, mtimeMs: number): Promise<SpoolEntry | undefined> {
  while (!isWholeGitEntry(entry) && Date.now() - mtimeMs < TORN_GIT_ENTRY_WAIT_MS) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    try {
      entry = parseSpoolEntry(readFileSync(path));
    } catch {
      return undefined;
    }
  }
  return isWholeGitEntry(entry) ? entry : undefined;
}

function isWholeGitEntry(entry: SpoolEntry | undefined): entry is SpoolEntry {
  if (entry?.agent !== GIT_AGENT) return false;
  if (entry.event !== 'post-commit') return true;
  return entry.payload.kind === 'ok' && /^[0-9a-f]{40,64}\n$/.test(entry.payload.text);
}

function writerFor(journal: string): TraceWriter {
  let earlier: TraceRecord | undefined;
  try {
    earlier = JSON.parse(readFileSync(journal, 'utf8')) as TraceRecord;
  } catch {
    earlier = undefined; // none, or torn before its rename: this fold makes the row
  }
  return {
    earlier,
    write(path, row) {
      if (earlier && tailHolds(path, row.id)) return;
      if (!earlier) writeFileAtomicSync(journal, JSON.stringify(row), { mode: 0o600 });
      appendRecord(path, row);
    },
  };
}

/** Whether the last TAIL_BYTES of the file hold the row `id`: read from the end, never the whole file. */
function tailHolds(path: string, id: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const size = fstatSync(fd).size;
    const tail = Buffer.alloc(Math.min(size, TAIL_BYTES));
    readSync(fd, tail, 0, tail.length, size - tail.length);
    return tail.toString('utf8').includes(`"id":${JSON.stringify(id)}`);
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

interface Listed {
  name: string;
  mtimeMs: number;
  mtimeNs: bigint;
}

/**
 * Finished entries, oldest first: by modification time to the nanosecond where the file system keeps it; in one
 * clock tick, agents' events before git's (an edit reported in the tick of a commit is folded before its ledger), then by name.
 */
function entriesOf(dir: string): Listed[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith(ENTRY_SUFFIX));
  } catch {
    return [];
  }
  const listed: Listed[] = [];
  for (const name of names) {
    try {
      const stat = statSync(join(dir, name), { bigint: true });
      listed.push({ name, mtimeMs: Number(stat.mtimeMs), mtimeNs: stat.mtimeNs });
    } catch {
      // folded meanwhile
    }
  }
  const git = (name: string) => (name.endsWith(GIT_ENTRY_SUFFIX) ? 1 : 0);
  return listed.sort((a, b) =>
    a.mtimeNs < b.mtimeNs ? -1 : a.mtimeNs > b.mtimeNs ? 1 : git(a.name) - git(b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
}

/** How many finished entries were spooled before `ms` (their modification time) and are still there. */
export function spooledBefore(home: string, ms: number): number {
  return entriesOf(spoolDir(home)).filter((entry) => entry.mtimeMs <= ms).length;
}

/** A `.row` whose entry is gone (killed between the two removals), and entries the hook never finished. */
function removeLeftovers(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const path = join(dir, name);
    if (name.endsWith(`${ENTRY_SUFFIX}.row`) && !existsSync(path.slice(0, -'.row'.length))) rmSync(path, { force: true });
    else if (name.startsWith('.') && !name.endsWith('.lock')) {
      try {
        if (Date.now() - statSync(path).mtimeMs > TORN_ENTRY_MAX_AGE_MS) rmSync(path, { force: true });
      } catch {
        // gone meanwhile
      }
    }
  }
}

function lock(dir: string, waitMs: number, onSlowHolder?: (holder: LockHolder) => void): Promise<Release | undefined> {
  // A lock taken away while held (its file removed by hand) risks at worst a row the journal then finds.
  return takeLock(join(dir, FOLD_LOCK), {
    waitMs,
    pollMs: LOCK_POLL_MS,
    purpose: 'the background fold',
    ...(onSlowHolder ? { onSlowHolder } : {}),
  });
}
