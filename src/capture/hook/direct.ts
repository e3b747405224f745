// `tracer hook <agent> <event>` run directly (by hand, or by an agent with
// TRACER_HOOK_SYNC=1): one event recorded before the command returns. The
// installed hooks spool instead (bin/tracer-hook.sh) and the fold records their
// events; an event recorded here must not stand before theirs (issue 34: every
// edit in traces.jsonl once and in order per session), so what they spooled is
// folded first, as every command does, and when some of it cannot be, this event
// is spooled behind it for the fold that can.
import { tracerHome } from '../../store/home.js';
import { readPayload } from './payload.js';
import { recordEvent, type HookIo } from './run-hook.js';

export async function runHook(agent: string, event: string, io: HookIo): Promise<0> {
  const began = Date.now();
  const payload = await readPayload(io.stdin);
  if (payload.kind === 'ok' && (await spooledAhead(io, began))) {
    const [{ writeSpoolEntry }, { spoolDir, ENTRY_SUFFIX }] = await Promise.all([
      import('../spool/entry.js'),
      import('../spool/pending.js'),
    ]);
    writeSpoolEntry(spoolDir(tracerHome(io.env)), { agent, event, cwd: io.cwd, env: io.env, payload: payload.text }, ENTRY_SUFFIX);
    return 0;
  }
  await recordEvent(agent, event, payload, io, { ts: new Date(began).toISOString() });
  return 0;
}

/** Folds what the hooks spooled before `began`; true when some of it is still left. */
async function spooledAhead(io: HookIo, began: number): Promise<boolean> {
  const { spoolPending } = await import('../spool/pending.js');
  if (!spoolPending(tracerHome(io.env))) return false;
  const { foldSpoolFirst } = await import('../spool/fold-first.js');
  return (await foldSpoolFirst(io.env, undefined, began)) !== undefined;
}
