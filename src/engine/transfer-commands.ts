// The work behind `tracer push`, `pull` and `sync`, loaded only when one of them
// runs (it brings the HTTP client and the display). Returns the exit code.
import type { Writable } from 'node:stream';
import { errorJson, ExitCode, markPrintedAsJson, TracerError, type TracerWarning } from '../core/errors.js';
import type { Kernel } from '../kernel/kernel.js';
import type { PullReport } from './pull.js';
import { checkOnly } from './only.js';
import { PREFLIGHT_STEP, runPush, type PushReport } from './push.js';
import { openSession } from './session.js';
import { outputMode, showProgress, type OutputMode } from './progress-display.js';
import { PUSH_LOG_FILE } from './push-log.js';

export interface TransferIO {
  kernel: Kernel;
  stdout: Writable & { isTTY?: boolean };
  json?: boolean;
  quiet?: boolean;
}

export interface PushFlags {
  remote?: string;
  full: boolean;
  only?: string;
  since?: string;
  dryRun: boolean;
}

export interface PullFlags {
  remote?: string;
  since?: string;
  dryRun: boolean;
}

/** What push and pull do when a flag is not given: the one place these defaults live, for both legs of sync too. */
const PUSH_DEFAULTS: PushFlags = { full: false, dryRun: false };
const PULL_DEFAULTS: PullFlags = { dryRun: false };
type Given<T> = { [K in keyof T]?: T[K] | undefined };
const withDefaults = <T extends object>(defaults: T, given: Given<T>): T =>
  ({ ...defaults, ...Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined)) }) as T;

export async function pushCommand(io: TransferIO, given: Given<PushFlags>): Promise<number> {
  const flags = withDefaults(PUSH_DEFAULTS, given);
  checkOnly(io.kernel, flags.only);
  return transfer(io, 'push', flags.remote, async (mode, warnings) => ({ push: await pushLeg(io, mode, flags, warnings) }));
}

export async function pullCommand(io: TransferIO, given: Given<PullFlags>): Promise<number> {
  const flags = withDefaults(PULL_DEFAULTS, given);
  return transfer(io, 'pull', flags.remote, async (mode, warnings) => ({ pull: await pullLeg(io, mode, flags, warnings) }));
}

export async function syncCommand(io: TransferIO, flags: { remote?: string }): Promise<number> {
  return transfer(io, 'sync', flags.remote, async (mode, warnings) => {
    const push = await pushLeg(io, mode, withDefaults(PUSH_DEFAULTS, { remote: flags.remote }), warnings);
    const pull = await pullLeg(io, mode, withDefaults(PULL_DEFAULTS, { remote: flags.remote }), warnings);
    return { push, pull };
  });
}

interface Legs {
  push?: PushReport;
  pull?: PullReport;
}

async function transfer(
  io: TransferIO,
  command: 'push' | 'pull' | 'sync',
  remote: string | undefined,
  run: (mode: OutputMode, warnings: TracerWarning[]) => Promise<Legs>,
): Promise<number> {
  const mode = outputMode(io, io.stdout);
  const warnings: TracerWarning[] = [];
  let legs: Legs;
  try {
    legs = await run(mode, warnings);
  } catch (error) {
    if (mode === 'json') {
      writeJson(io.stdout, { ok: false, command, remote, error: errorJson(error), warnings });
      markPrintedAsJson(error);
    }
    passWarnings(io.kernel, mode, warnings);
    throw error;
  }
  passWarnings(io.kernel, mode, warnings);
  const failed = (legs.push?.totals.failed ?? 0) + (legs.pull?.totals.failed ?? 0);
  const exitCode = failed > 0 ? ExitCode.validation : ExitCode.ok;
  if (mode === 'json') {
    writeJson(io.stdout, { ok: exitCode === ExitCode.ok, command, remote: legs.push?.remote ?? legs.pull?.remote, ...legs, warnings });
  } else if (mode !== 'quiet') {
    if (legs.push) io.stdout.write(`${pushConclusion(legs.push)}\n`);
    if (legs.pull) io.stdout.write(`${pullConclusion(legs.pull)}\n`);
  }
  if (failed > 0) {
    const unsynced = new TracerError(
      'items_unsynced',
      `${failed} item${failed === 1 ? ' was' : 's were'} refused and left unsynced (nothing was dropped); see the warnings above and ${PUSH_LOG_FILE} in the project folder.`,
      {
        exitCode: ExitCode.validation,
      },
    );
    // The report above, with "ok": false, is the --json answer.
    if (mode === 'json') markPrintedAsJson(unsynced);
    throw unsynced;
  }
  return exitCode;
}

async function pushLeg(io: TransferIO, mode: OutputMode, flags: PushFlags, warnings: TracerWarning[]): Promise<PushReport> {
  const opened = await openSession(io.kernel, {
    direction: 'push',
    remote: flags.remote,
    dryRun: flags.dryRun,
    push: { full: flags.full, only: flags.only, since: flags.since, dryRun: flags.dryRun },
    onWarning: (warning) => warnings.push(warning),
  });
  const heading = `${flags.dryRun ? 'Dry run: planning a push' : 'Pushing'} to`;
  const steps = [PREFLIGHT_STEP, ...io.kernel.families.map((family) => family.name)];
  return runLeg(io, mode, opened, heading, steps, () => runPush(io.kernel, opened.session));
}

async function pullLeg(io: TransferIO, mode: OutputMode, flags: PullFlags, warnings: TracerWarning[]): Promise<PullReport> {
  const opened = await openSession(io.kernel, {
    direction: 'pull',
    remote: flags.remote,
    dryRun: flags.dryRun,
    onWarning: (warning) => warnings.push(warning),
  });
  const heading = `${flags.dryRun ? 'Dry run: reading' : 'Pulling'} from`;
  return runLeg(
    io,
    mode,
    opened,
    heading,
    io.kernel.families.map((family) => family.name),
    // Loaded by pulls only: a push never pays for the pull engine.
    async () => (await import('./pull.js')).runPull(io.kernel, opened.session, flags.since),
  );
}

/** One leg under its progress display: the heading, the live steps, and the session closed whatever happens. */
async function runLeg<T>(
  io: TransferIO,
  mode: OutputMode,
  opened: Awaited<ReturnType<typeof openSession>>,
  heading: string,
  steps: string[],
  run: () => Promise<T>,
): Promise<T> {
  const { session, close } = opened;
  if (mode === 'plain' || mode === 'tty') io.stdout.write(`${heading} ${session.remote.name} (${session.remote.target.url})\n`);
  const display = await showProgress(io.kernel, mode, steps, io.stdout);
  try {
    const report = await run();
    await display.finish();
    return report;
  } catch (error) {
    await display.finish(error);
    throw error;
  } finally {
    close();
  }
}

function pushConclusion(report: PushReport): string {
  const { totals } = report;
  // What was not sent is said here, so that a push exiting 0 accounts for every row it read.
  const left = [
    totals.held > 0 ? ` ${totals.held} held back (see tracer status; --full sends unattributed traces).` : '',
    totals.invalid > 0 ? ` ${totals.invalid} invalid, not sent (see ${PUSH_LOG_FILE}).` : '',
    totals.before_since > 0 ? ` ${totals.before_since} older than --since.` : '',
  ].join('');
  if (report.dry_run)
    return `Dry run: nothing was sent. A push would send ${totals.pending} item${totals.pending === 1 ? '' : 's'} to ${report.remote}.${left}`;
  return `Pushed ${totals.sent} item${totals.sent === 1 ? '' : 's'} to ${report.remote} (${totals.inserted} new on the server).${left}`;
}

function pullConclusion(report: PullReport): string {
  const { totals } = report;
  if (report.dry_run)
    return `Dry run: nothing was written. A pull would add ${totals.inserted} item${totals.inserted === 1 ? '' : 's'} from ${report.remote}.`;
  return `Pulled ${totals.inserted} new item${totals.inserted === 1 ? '' : 's'} from ${report.remote} (${totals.duplicates} already here).`;
}

/** Warnings reach stderr through the kernel (once each), except with --quiet. They are in the JSON result too. */
function passWarnings(kernel: Kernel, mode: OutputMode, warnings: readonly TracerWarning[]): void {
  if (mode === 'quiet') return;
  const seen = new Set(kernel.warnings.map((warning) => `${warning.code}\n${warning.message}`));
  for (const warning of warnings) {
    const key = `${warning.code}\n${warning.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    kernel.warn(warning);
  }
}

export function writeJson(stdout: Writable, value: unknown): void {
  stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
