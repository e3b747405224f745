// What every tracer process runs before it reads: events the hook spooled are
// folded into traces.jsonl first, so that a commit's ledger, a push, a status
// or a view sees every event an agent's hook has returned from.
import { tracerHome } from '../../store/home.js';
import { logHookFailure } from '../hook/error-log.js';
import { spoolPending } from './pending.js';

/** Long enough for a fold in the background to finish a burst of events; a command that still finds the lock held goes on without them. */
const COMMAND_WAIT_MS = 10_000;

export async function foldSpoolFirst(env: NodeJS.ProcessEnv): Promise<void> {
  if (spoolPending(tracerHome(env))) await foldQuietly(env, COMMAND_WAIT_MS);
}

/** `tracer hook --fold`, which bin/tracer-hook.sh starts in the background: it folds what it can without waiting for a fold already under way. */
export async function runSpoolFold(env: NodeJS.ProcessEnv): Promise<0> {
  await foldQuietly(env, 0);
  return 0;
}

async function foldQuietly(env: NodeJS.ProcessEnv, waitMs: number): Promise<void> {
  const home = tracerHome(env);
  try {
    const { foldSpool } = await import('./fold.js');
    await foldSpool({ home, env, waitMs });
  } catch (error) {
    // The command's own work comes first; what was not folded stays spooled for the next fold.
    logHookFailure(
      home,
      { agent: 'spool', event: 'fold' },
      {
        code: 'spool_fold_failed',
        message: `Spooled agent events were not folded yet: ${error instanceof Error ? error.message : String(error)}`,
      },
    );
  }
}
