// What every tracer process runs before it reads: what the hooks spooled (the
// agents' events, git's commits) is folded first, so that a ledger, a push, a
// status or a view sees every event a hook has returned from.
//
// A command never reads a partial view silently: when something spooled before
// it started is still in the spool afterwards (a live fold held the lock past
// the wait, or a row could not be written), it says so with the warning
// spool_not_folded (on stderr, and in its --json object).
import type { Writable } from 'node:stream';
import type { TracerWarning } from '../../core/errors.js';
import { tracerHome } from '../../store/home.js';
import { logHookFailure } from '../hook/error-log.js';
import { join } from 'node:path';
import { FOLD_LOCK, SPOOL_NOT_FOLDED, spoolDir, spoolPending } from './pending.js';

const foldLockPath = (home: string) => join(spoolDir(home), FOLD_LOCK);

/** How long a command waits for a live fold that holds the lock (a dead one is taken over at once); TRACER_SPOOL_WAIT_MS sets another. */
const COMMAND_WAIT_MS = 10_000;

function commandWaitMs(env: NodeJS.ProcessEnv): number {
  const set = Number(env.TRACER_SPOOL_WAIT_MS);
  return env.TRACER_SPOOL_WAIT_MS !== undefined && env.TRACER_SPOOL_WAIT_MS !== '' && Number.isFinite(set) && set >= 0
    ? set
    : COMMAND_WAIT_MS;
}

export { SPOOL_NOT_FOLDED };

/** Folds the spool; a warning when entries spooled before `began` are left. */
export async function foldSpoolFirst(env: NodeJS.ProcessEnv, stderr?: Writable, began = Date.now()): Promise<TracerWarning | undefined> {
  const home = tracerHome(env);
  if (!spoolPending(home)) return undefined;
  let failure: string | undefined;
  let holderPid: number | undefined;
  const waitMs = commandWaitMs(env);
  try {
    const { foldSpool, spooledBefore } = await import('./fold.js');
    // A live fold is waited for as long as it gets on with the entries spooled before this command (it folds
    // them for this command); one that folds none of them for a whole wait is hung, or the entries cannot be folded.
    for (let before = spooledBefore(home, began); ;) {
      await foldSpool({
        home,
        env,
        waitMs,
        onSlowHolder: (holder) => {
          if (holderPid === undefined) stderr?.write(`tracer: waiting for ${holder.purpose ?? 'the background fold'}, pid ${holder.pid}\n`);
          holderPid = holder.pid;
        },
      });
      const left = spooledBefore(home, began);
      if (left === 0 || left >= before) break;
      before = left;
    }
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
    // The command's own work comes first; what was not folded stays spooled for the next fold.
    logHookFailure(
      home,
      { agent: 'spool', event: 'fold' },
      { code: 'spool_fold_failed', message: `Spooled events were not folded yet: ${failure}` },
    );
  }
  const { spooledBefore } = await import('./fold.js');
  const left = spooledBefore(home, began);
  if (left === 0) return undefined;
  // Not told by the wait (shorter than a second, or the holder went quiet): who holds it now.
  if (failure === undefined && holderPid === undefined)
    holderPid = (await import('../../store/file-lock.js')).liveHolder(foldLockPath(home))?.pid;
  const why =
    failure !== undefined
      ? `the fold failed (${failure.replace(/\.$/, '')})`
      : holderPid !== undefined
        ? `the fold of pid ${holderPid} held the spool's lock for ${waitMs / 1000} s without folding them`
        : 'they could not be folded yet (see hook-errors.log)';
  return {
    code: SPOOL_NOT_FOLDED,
    message: `${left} event${left === 1 ? '' : 's'} spooled before this command started ${left === 1 ? 'is' : 'are'} not in what it shows: ${why}; run the command again.`,
  };
}

/** `tracer hook --fold`, which the hooks start in the background: it folds what it can without waiting for a fold already under way. */
export async function runSpoolFold(env: NodeJS.ProcessEnv): Promise<0> {
  const home = tracerHome(env);
  try {
    const { foldSpool } = await import('./fold.js');
    await foldSpool({ home, env, waitMs: 0 });
  } catch (error) {
    logHookFailure(
      home,
      { agent: 'spool', event: 'fold' },
      {
        code: 'spool_fold_failed',
        message: `Spooled events were not folded yet: ${error instanceof Error ? error.message : String(error)}`,
      },
    );
  }
  return 0;
}
