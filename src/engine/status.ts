// `tracer status` (spec §4.5): per remote and family, how many local items are
// not on that remote yet, and how many of them a plan holds back (traces waiting
// for attribution). Offline: it reads sync-state.json, never the network.
import type { Writable } from 'node:stream';
import type { TracerWarning } from '../core/errors.js';
import { parseRemoteUrl } from '../core/remote-url.js';
import type { Transport } from '../kernel/transport.js';
import type { Kernel } from '../kernel/kernel.js';
import { FamilyPush } from './push-family.js';
import { requireProject } from './session.js';
import type { FamilyPlan, SyncSession } from '../kernel/types.js';
import { readRemotes } from '../store/remotes.js';
import { RemoteSyncState } from './sync-state.js';
import { writeJson } from './transfer-commands.js';

export interface FamilyStatus {
  local: number;
  unpushed: number;
  /** What a push without flags would send now. */
  ready: number;
  invalid: number;
  /** Held back, per reason (e.g. waiting_for_attribution), flattened into the object. */
  [reason: string]: number;
}

export interface RemoteStatus {
  name: string;
  url: string;
  unpushed: number;
  families: Record<string, FamilyStatus>;
  [reason: string]: unknown;
}

export async function statusCommand(io: { kernel: Kernel; stdout: Writable; json?: boolean }): Promise<number> {
  const project = requireProject(io.kernel);
  const remotes = (await readRemotes(project.dir)).remotes;
  const warnings: TracerWarning[] = [];
  const result: RemoteStatus[] = [];
  for (const [name, record] of Object.entries(remotes))
    result.push(await remoteStatus(io.kernel, name, record.url, (warning) => warnings.push(warning)));
  for (const warning of dedupe(warnings)) io.kernel.warn(warning);
  if (io.json) {
    writeJson(io.stdout, { project: project.id, remotes: result });
    return 0;
  }
  const print = (line: string) => io.stdout.write(`${line}\n`);
  print(`Project ${project.id}`);
  if (result.length === 0) print('No remote yet: add one with tracer remote add <name> <url> --token <TOKEN>.');
  for (const remote of result) {
    print(`Remote ${remote.name} (${remote.url}): ${remote.unpushed === 0 ? 'everything pushed' : `${remote.unpushed} unpushed`}`);
    for (const [family, counts] of Object.entries(remote.families)) {
      const held = heldReasons(counts).map(([reason, count]) => `${count} ${reason.replace(/_/g, ' ')}`);
      const line =
        counts.unpushed === 0
          ? `up to date (${counts.local} local)`
          : `${counts.unpushed} unpushed of ${counts.local}${held.length ? ` (${held.join(', ')})` : ''}`;
      print(`  ${family}: ${line}${counts.invalid ? `, ${counts.invalid} invalid` : ''}`);
    }
  }
  return 0;
}

async function remoteStatus(kernel: Kernel, name: string, url: string, warn: (warning: TracerWarning) => void): Promise<RemoteStatus> {
  const project = requireProject(kernel);
  const state = await RemoteSyncState.load(project.dir, name, url);
  const session = offlineSession(kernel, name, url, warn);
  const status: RemoteStatus = { name, url, unpushed: 0, families: {} };
  {
    for (const family of kernel.families) {
      let plan: FamilyPlan = { family, filters: [] };
      plan = await kernel.hooks.beforeFamily.promise(plan, session);
      // A dry run counts exactly what a push would consider, and sends nothing.
      const report = await new FamilyPush(kernel, session, state, plan).run();
      const counts: FamilyStatus = {
        local: report.local,
        unpushed: report.local - report.already_synced - report.invalid,
        ready: report.pending,
        invalid: report.invalid,
      };
      for (const [reason, count] of Object.entries(report.held)) counts[reason] = count;
      status.families[family.name] = counts;
      status.unpushed += counts.unpushed;
      for (const [reason, count] of heldReasons(counts)) status[reason] = Number(status[reason] ?? 0) + count;
    }
  }
  return status;
}

/** A session that can plan but is never used to send: status needs no token and no network. */
function offlineSession(kernel: Kernel, name: string, url: string, warn: (warning: TracerWarning) => void): SyncSession {
  const project = requireProject(kernel);
  const target = parseRemoteUrl(url);
  return {
    direction: 'check',
    project,
    remote: {
      name,
      record: { url: target.url, org_slug: target.org_slug, project_slug: target.project_slug, base_url: target.base_url },
      target,
      tokenSource: 'none',
    },
    transport: OFFLINE,
    dryRun: true,
    push: { full: false, dryRun: true },
    warn,
    log: async (entry) => warn({ code: entry.code, message: entry.message }),
    state: new Map(),
  };
}

const COUNT_FIELDS = new Set(['local', 'unpushed', 'ready', 'invalid']);
function heldReasons(counts: FamilyStatus): Array<[string, number]> {
  return Object.entries(counts).filter(([key]) => !COUNT_FIELDS.has(key));
}

function dedupe(warnings: readonly TracerWarning[]): TracerWarning[] {
  const seen = new Set<string>();
  return warnings.filter((warning) => {
    const key = `${warning.code}\n${warning.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Status plans as a dry run does, which never sends: a transport that is asked anything is a bug. */
const never = (): never => {
  throw new Error('tracer status reached for the network; it must only count');
};
const OFFLINE: Transport = {
  limits: { itemsPerRequest: 0, bytesPerRequest: 0, pageSize: 0 },
  location: 'nowhere (status works offline)',
  identify: never,
  send: never,
  page: never,
  hasBlob: never,
  putBlob: never,
  getBlob: never,
  yieldToRequests: never,
  close: () => undefined,
};
