// The work behind `tracer forget` (issue 31), loaded only when it runs. The
// service forgets first (it keeps the tombstones every other machine learns
// from); only once it has, this machine's copies go: first what the service's
// tombstones name, then whatever else the selection finds here. Anything
// refused before that point (an unknown id, a token whose role forbids it, no
// remote) changes nothing anywhere.
import type { Writable } from 'node:stream';
import { ExitCode, markPrintedAsJson, TracerError } from '../core/errors.js';
import type { Kernel } from '../kernel/kernel.js';
import { openSession, requireProject } from '../engine/session.js';
import { isRouteMissing } from '../protocol/problem.js';
import { FORGET_ROUTE } from '../protocol/routes.js';
import { PRIVACY_CAPABILITY, type ForgetAnswer, type PrivacyChannel } from '../protocol/privacy.js';
import { applySelection, type LocalRemoval } from './apply.js';
import { clearPending, writePending, type ForgetSelection } from './journal.js';
import { describeRemoval } from './session.js';
import { finishPendingForget, syncTombstones } from './sync.js';

export interface ForgetFlags {
  conversationIds?: string[];
  before?: string;
  agent?: string;
  withTraces: boolean;
  withAttribution: boolean;
  dryRun: boolean;
  yes: boolean;
  remote?: string;
  localOnly: boolean;
  json: boolean;
}

export async function forgetCommand(kernel: Kernel, stdout: Writable, flags: ForgetFlags): Promise<number> {
  const project = requireProject(kernel);
  const selection: ForgetSelection = {
    conversationIds: flags.conversationIds,
    agent: flags.agent,
    before: flags.before,
    kinds: ['content', ...(flags.withTraces ? (['trace'] as const) : []), ...(flags.withAttribution ? (['attribution'] as const) : [])],
  };
  const families = kernel.families;
  // A forget killed half-way earlier is finished first, so this one's figures are its own.
  await finishPendingForget(families, project.dir);
  const here = await applySelection(families, project.dir, selection, { dryRun: true, kinds: ['content'] });

  let remote: { name: string; url: string; channel: PrivacyChannel; close(): void } | undefined;
  let planned: ForgetAnswer | undefined;
  if (!flags.localOnly) {
    remote = await openRemote(kernel, flags.remote);
    try {
      planned = await remote.channel.forget(request(selection, true));
    } catch (error) {
      remote.close();
      if (isRouteMissing(error))
        throw new TracerError(
          'forget_unsupported',
          `The service of remote "${remote.name}" cannot forget (it has no ${FORGET_ROUTE}); upgrade it, or pass --local-only to forget on this machine alone. Nothing was forgotten.`,
          { exitCode: ExitCode.failure },
        );
      throw error;
    }
  }
  try {
    let unknown = (flags.conversationIds ?? []).filter(
      (id) => !here.conversations.has(id) && (planned === undefined || planned.unknown_conversations.includes(id)),
    );
    // Not in a transcript or a summary here (small files): looked for in the traces and ledgers too (which can be large).
    if (unknown.length > 0) {
      const elsewhere = await applySelection(
        families,
        project.dir,
        { ...selection, conversationIds: unknown, kinds: ['trace', 'attribution'] },
        { dryRun: true },
      );
      unknown = unknown.filter((id) => !elsewhere.conversations.has(id));
    }
    if (unknown.length > 0) {
      const where = remote ? `on this machine or on remote "${remote.name}"` : 'on this machine';
      throw new TracerError(
        'unknown_conversation',
        `No conversation ${unknown.join(', ')} ${where}, so nothing was forgotten; check the id (tracer view lists the sessions).`,
        { exitCode: ExitCode.usage },
      );
    }
    const listing = flags.dryRun || !flags.yes;
    // The list shows the traces and attribution that would go too; a forget with --yes finds them as it removes them.
    if (listing && selection.kinds.length > 1)
      mergeInto(here, await applySelection(families, project.dir, selection, { dryRun: true, kinds: ['trace', 'attribution'] }));
    const plan = { remote: planned && summary(planned), local: localSummary(here) };
    if (listing) {
      if (flags.json) writeJson(stdout, { ok: flags.dryRun, dry_run: true, remote: remote?.name, plan });
      else stdout.write(planText(remote?.name, planned, here));
      if (flags.dryRun) return ExitCode.ok;
      const unconfirmed = new TracerError(
        'confirmation_required',
        'Nothing was forgotten: this cannot be undone, so run it again with --yes (or --dry-run to only list it).',
        {
          exitCode: ExitCode.usage,
        },
      );
      // The plan above, with "ok": false, is the --json answer.
      if (flags.json) markPrintedAsJson(unconfirmed);
      throw unconfirmed;
    }

    let done: ForgetAnswer | undefined;
    let fromRemote: LocalRemoval | undefined;
    if (remote) {
      done = await remote.channel.forget(request(selection, false));
      // The service's tombstones first (recorded before anything here goes), then what only this machine held.
      try {
        fromRemote = (await syncTombstones({ families, projectDir: project.dir, remote, channel: remote.channel })).removal;
      } catch (error) {
        // A service that forgets but hands out no tombstones (switched off): this machine's own selection still runs below.
        if (!isRouteMissing(error)) throw error;
      }
    }
    await writePending(project.dir, selection);
    const local = await applySelection(families, project.dir, selection, { dryRun: false });
    await clearPending(project.dir);
    const mergedLocal = merge(fromRemote, local);
    if (flags.json)
      writeJson(stdout, {
        ok: true,
        dry_run: false,
        remote: remote?.name,
        forgotten: { remote: done && summary(done), local: localSummary(mergedLocal) },
      });
    else {
      if (done && remote)
        stdout.write(
          `Forgot on remote "${remote.name}": ${describeAnswer(done)}; it keeps tombstones (what, by whom, when; never the content) so every machine drops its copies at its next pull or push.\n`,
        );
      stdout.write(`Forgot on this machine: ${describeRemoval(mergedLocal) ?? 'nothing was held here'}.\n`);
    }
    return ExitCode.ok;
  } finally {
    remote?.close();
  }
}

async function openRemote(kernel: Kernel, name: string | undefined) {
  let opened;
  try {
    opened = await openSession(kernel, { direction: 'check', remote: name });
  } catch (error) {
    if (error instanceof TracerError && error.code === 'no_remote')
      throw new TracerError(
        'remote_required',
        'tracer forget needs a remote, so that the service and every machine drop it too; add one with tracer remote add <name> <url>, or pass --local-only to forget on this machine alone.',
        { exitCode: ExitCode.usage },
      );
    throw error;
  }
  const { session, close } = opened;
  try {
    // The scope pre-flight (spec §4.4): a token of another org or project is refused before anything is asked.
    await kernel.hooks.preflight.promise(session);
  } catch (error) {
    close();
    throw error;
  }
  const channel = session.transport.capability?.<PrivacyChannel>(PRIVACY_CAPABILITY);
  if (!channel) {
    close();
    throw new TracerError(
      'forget_unsupported',
      `Remote "${session.remote.name}" is not reached over HTTP, so it cannot be asked to forget; use --local-only.`,
      {
        exitCode: ExitCode.failure,
      },
    );
  }
  return { name: session.remote.name, url: session.remote.record.url, channel, close };
}

function request(selection: ForgetSelection, dryRun: boolean) {
  return {
    ...(selection.conversationIds ? { conversation_ids: selection.conversationIds } : {}),
    ...(selection.agent ? { agent: selection.agent } : {}),
    ...(selection.before ? { before: selection.before } : {}),
    with_traces: selection.kinds.includes('trace'),
    with_attribution: selection.kinds.includes('attribution'),
    dry_run: dryRun,
  };
}

function summary(answer: ForgetAnswer) {
  return {
    rows: answer.removed,
    blobs: answer.blobs,
    conversations: answer.conversations,
    conversations_total: answer.conversations_total,
  };
}

function localSummary(removal: LocalRemoval) {
  return { rows: removal.rows, conversations: [...removal.conversations] };
}

/** Adds `more` (a look at other families) to `into`. */
function mergeInto(into: LocalRemoval, more: LocalRemoval): void {
  for (const [family, n] of Object.entries(more.rows)) into.rows[family] = (into.rows[family] ?? 0) + n;
  for (const id of more.conversations) into.conversations.add(id);
}

function merge(a: LocalRemoval | undefined, b: LocalRemoval): LocalRemoval {
  if (!a) return b;
  const rows = { ...a.rows };
  for (const [family, n] of Object.entries(b.rows)) rows[family] = (rows[family] ?? 0) + n;
  return { rows, conversations: new Set([...a.conversations, ...b.conversations]) };
}

function describeAnswer(answer: ForgetAnswer): string {
  const total = Object.values(answer.removed).reduce((sum, n) => sum + n, 0);
  if (total === 0) return 'nothing (it held none of it)';
  const families = Object.entries(answer.removed)
    .map(([family, n]) => `${n} ${family}`)
    .join(', ');
  const blobs = answer.blobs > 0 ? `, ${answer.blobs} blob${answer.blobs === 1 ? '' : 's'}` : '';
  return `${total} row${total === 1 ? '' : 's'} (${families})${blobs} of ${answer.conversations_total} conversation${answer.conversations_total === 1 ? '' : 's'}`;
}

function planText(remote: string | undefined, planned: ForgetAnswer | undefined, here: LocalRemoval): string {
  const lines = ['Would forget:'];
  if (remote && planned) lines.push(`  on remote "${remote}": ${describeAnswer(planned)}`);
  lines.push(`  on this machine: ${describeRemoval(here) ?? 'nothing'}`);
  const ids = [...new Set([...(planned?.conversations ?? []), ...here.conversations])];
  for (const id of ids.slice(0, 50)) lines.push(`    ${id}`);
  if (ids.length > 50) lines.push(`    ... and ${ids.length - 50} more`);
  return `${lines.join('\n')}\n`;
}

function writeJson(stdout: Writable, value: unknown): void {
  stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
