// One agent event, from its payload to its trace row (and on stop/session-end a
// transcript snapshot and a summary): what the spool's fold and `tracer hook` (direct.ts) record. It never gets
// in the agent's way: exit 0 whatever happens, nothing on stdout, every failure
// one JSON line in hook-errors.log. It never boots the plugin kernel (agents run
// it, through the spool's fold, on every tool use), so this module imports only
// what recording needs.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { writeFileAtomicSync } from '../../files/atomic-write.js';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { homePaths, PROJECT_STATE_FILES, tracerHome } from '../../store/home.js';
import { resolveProject } from '../../store/project.js';
import { resolveDestination, type Destination } from './destination.js';
import { logHookFailure, type HookFailure } from './error-log.js';
import { pathToFileURL } from 'node:url';
import {
  BUILTIN_LIST_FILE,
  builtinPluginPath,
  effectivePluginList,
  entryKey,
  type PluginEntry,
  type PluginLayer,
} from '../../kernel/plugin-list.js';
import { addAgent, type AgentAdapter } from '../../core/agent.js';
import { AGENT_ID, isObject, PayloadError, type HookEvent, type Payload } from './hook-event.js';
import { listLayer } from './list-layer.js';
import { PAYLOAD_CAP_BYTES, type PayloadRead } from './payload.js';
import { TRACES_FILE, traceRow } from './trace-row.js';
import { appendRecord } from '../../store/jsonl.js';
import type { TraceRecord } from '../trace-record.js';
import type { CaptureRedaction } from '../../redact/capture.js';
import { parseWellFormedJson } from './well-formed.js';

export interface HookIo {
  stdin: Readable & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** How a folded spool entry (src/capture/spool/fold.ts) has its trace row written exactly once. */
export interface TraceWriter {
  /** The row this event was given by an earlier, interrupted fold: written as it is, not made again from the file. */
  earlier?: TraceRecord;
  write(path: string, row: TraceRecord): void;
}

/** A hook's own writer: the row is made now and appended once. */
const APPEND: TraceWriter = { write: appendRecord };

export interface RecordOptions {
  /** When the agent reported the event: now for a hook, the spool entry's time for a fold. */
  ts: string;
  /** How the row is written; a hook appends it (APPEND). */
  trace?: TraceWriter;
}

/**
 * One agent event, from its payload to its trace row, transcript snapshot and
 * summary. Failures are logged, never thrown: the agent is never in the way.
 * `retry` when the trace row could not be written (a full disk), so that a
 * spooled event is kept for the next fold instead of being lost.
 */
export async function recordEvent(
  agent: string,
  event: string,
  read: PayloadRead,
  io: Omit<HookIo, 'stdin'>,
  options: RecordOptions,
): Promise<'done' | 'retry'> {
  const home = tracerHome(io.env);
  // Until the payload names the agent's folder, failures go to the project of the folder the hook runs in,
  // looked up only when one happens: a hook that records resolves its project once.
  let logDir: string | undefined;
  const fail = (failure: HookFailure) =>
    logHookFailure(logDir ?? existingProjectDir(io.cwd, home, io.env) ?? home, { agent, event }, failure);
  try {
    // Only the calling agent's adapter is loaded: every module costs the agent's tool call start-up time.
    let loaded = await loadAgent(agent, { home, cwd: io.cwd, env: io.env });
    if (!loaded) {
      fail({
        code: 'unknown_agent',
        message: `"${agent}" is not an agent of the enabled plugins (tracer plugins lists them); fix the hook command that runs tracer hook.`,
      });
      return 'done';
    }
    const payload = parsePayload(read);
    if ('failure' in payload) {
      fail(payload.failure);
      return 'done';
    }
    const context = { env: io.env, cwd: io.cwd };
    const other = loaded.adapter.handOff?.(payload.value);
    if (other !== undefined) {
      const taker = await loadAgent(other, { home, cwd: io.cwd, env: io.env });
      if (taker) {
        if (taker.adapter.acceptsHandOff?.(payload.value, context) === false) return 'done';
        loaded = taker;
      }
    }
    const chosen = loaded;
    const { adapter } = chosen;
    const normalized = adapter.normalize(event, payload.value, context);
    if (normalized.nothingToRecord) return 'done';
    // A project whose `plugins` setting switches this agent off gets nothing from it: no row, no log line.
    const destination = await resolveDestination(normalized.cwd ?? io.cwd, home, io.env, {
      recordsIn: (projectDir) => enabledInProject(chosen, projectDir),
    });
    if (!destination) return 'done';
    logDir = destination.dir;
    return await record(adapter, normalized, destination, io, fail, options);
  } catch (error) {
    fail(asFailure(error));
    return 'done';
  }
}

/** Each step stands alone: a transcript that cannot be read must not lose the trace row, nor the reverse. */
async function record(
  adapter: AgentAdapter,
  event: HookEvent,
  destination: Destination,
  io: Omit<HookIo, 'stdin'>,
  fail: (failure: HookFailure) => void,
  { ts, trace }: RecordOptions,
): Promise<'done' | 'retry'> {
  try {
    const path = join(destination.dir, TRACES_FILE);
    const writer = trace ?? APPEND;
    writer.write(path, writer.earlier ?? traceRow(destination, event, ts, event.cwd ?? io.cwd));
  } catch (error) {
    fail(asFailure(error));
    return 'retry';
  }
  const redaction = redactionFor(destination, io.env, fail);
  const refresh = refreshMarker(destination, event);
  if (!event.endsTurn && existsSync(refresh)) {
    // The last snapshot missed the turn's final message; whatever event comes next takes it again.
    await snapshot(adapter, destination, event, readMarker(refresh), ts, fail, redaction);
    rmSync(refresh, { force: true });
  }
  if (!event.endsTurn && event.reportedSummary === undefined) return 'done';
  if (event.endsTurn && event.transcriptPath) await snapshot(adapter, destination, event, event.transcriptPath, ts, fail, redaction);
  try {
    let text = event.reportedSummary;
    // An unreadable transcript was reported by the snapshot step; the payload's own message still counts.
    if (event.transcriptPath && adapter.closingMessage) {
      const last = await adapter.closingMessage(event.transcriptPath, text).catch(() => undefined);
      if (last) {
        if (last.final) rmSync(refresh, { force: true });
        else writeMarker(refresh, event.transcriptPath);
        text ??= last.text;
      }
    }
    const redacting = text === undefined ? undefined : await redaction();
    if (text !== undefined && redacting) {
      const { recordSummary } = await import('./summary.js');
      await recordSummary(destination.dir, {
        agent: event.agent,
        conversationId: event.conversationId,
        text: await redacting.text(text),
        ts,
        mark: redacting.mark,
      });
    }
  } catch (error) {
    fail({ code: 'summary_failed', message: `No summary was recorded: ${messageOf(error)}.` });
  }
  return 'done';
}

type Redaction = () => Promise<CaptureRedaction | undefined>;

/**
 * Redaction of the text this event stores (a snapshot, a summary), loaded on
 * first need: a tool use that stores no text loads none of it. When it cannot be
 * had (its salt cannot be written, say), nothing of the text is stored: the
 * transcript is the agent's and the next event snapshots it again.
 */
function redactionFor(destination: Destination, env: NodeJS.ProcessEnv, fail: (failure: HookFailure) => void): Redaction {
  let loading: Promise<CaptureRedaction | undefined> | undefined;
  return () =>
    (loading ??= (async () => {
      try {
        const { captureRedaction } = await import('../../redact/capture.js');
        return await captureRedaction({ home: tracerHome(env), projectDir: destination.dir, root: destination.root, env }, fail);
      } catch (error) {
        fail({
          code: 'redaction_unavailable',
          message: `Redaction could not start (${messageOf(error)}), so no transcript or summary was stored for this event; the next one tries again.`,
        });
        return undefined;
      }
    })());
}

async function snapshot(
  adapter: AgentAdapter,
  destination: Destination,
  event: HookEvent,
  transcriptPath: string,
  ts: string,
  fail: (failure: HookFailure) => void,
  redaction: Redaction,
): Promise<void> {
  try {
    const redacting = await redaction();
    if (!redacting) return;
    const { snapshotTranscript } = await import('./transcript.js');
    await snapshotTranscript(
      destination.dir,
      event.conversationId,
      transcriptPath,
      ts,
      redacting.snapshot,
      await exportedBytes(adapter, event, transcriptPath),
    );
  } catch (error) {
    fail({
      code: 'transcript_unreadable',
      message: `The transcript ${transcriptPath} could not be snapshotted: ${messageOf(error)}.`,
    });
  }
}

/** A transcript kept in the agent's database: the bytes its reader writes out of it (loaded only then). */
async function exportedBytes(adapter: AgentAdapter, event: HookEvent, transcriptPath: string): Promise<AsyncIterable<Buffer> | undefined> {
  if (!event.transcriptExport) return undefined;
  const format = await adapter.transcript?.();
  if (!format?.snapshot) throw new Error(`the ${adapter.id} adapter names a database but its reader cannot write a transcript out of it`);
  return format.snapshot(transcriptPath, event.conversationId);
}

/**
 * Claude Code may fire Stop before the turn's final message reaches the
 * transcript. Such a snapshot is marked, and the conversation's next event
 * (SessionEnd, or the next prompt) snapshots the transcript again.
 */
function refreshMarker(destination: Destination, event: HookEvent): string {
  return join(destination.dir, 'conversations', `.refresh-${encodeURIComponent(event.conversationId)}`);
}

function writeMarker(path: string, transcriptPath: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  // Through the one atomic write: a marker torn by a crash would name half a path.
  writeFileAtomicSync(path, transcriptPath, { mode: 0o600 });
}

function readMarker(path: string): string {
  return readFileSync(path, 'utf8');
}

function parsePayload(read: PayloadRead): { value: Payload } | { failure: HookFailure } {
  if (read.kind === 'none')
    return { failure: { code: 'empty_payload', message: 'No payload arrived on stdin; agents pass their hook JSON there.' } };
  if (read.kind === 'too_large') {
    return {
      failure: {
        code: 'payload_too_large',
        message: `The payload is over the ${PAYLOAD_CAP_BYTES}-byte cap (${read.bytes} bytes or more); nothing past the cap was kept and the event was skipped.`,
      },
    };
  }
  let value: unknown;
  try {
    value = parseWellFormedJson(read.text);
  } catch {
    return {
      failure: {
        code: 'invalid_payload',
        message: `The payload (${Buffer.byteLength(read.text)} bytes) is not valid JSON; the event was skipped.`,
      },
    };
  }
  if (!isObject(value))
    return { failure: { code: 'invalid_payload', message: 'The payload is not a JSON object; the event was skipped.' } };
  return { value };
}

function existingProjectDir(cwd: string, home: string, env: NodeJS.ProcessEnv): string | undefined {
  try {
    return resolveProject({ cwd, home, env }).dir;
  } catch {
    return undefined;
  }
}

function asFailure(error: unknown): HookFailure {
  if (error instanceof PayloadError) return { code: error.code, message: error.message };
  const code =
    typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' && /^[a-z_]+$/.test(error.code)
      ? error.code
      : 'internal_error';
  return { code, message: messageOf(error) };
}

function messageOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\.$/, '');
}

export interface LoadContext {
  home: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/**
 * Which adapter answers `tracer hook <agent> <event>`. Agents are plugins
 * (`agents/<id>` in the package's plugins.json, or a module of the user's or the
 * project's plugin list), but this never boots the kernel: a built-in agent costs
 * the two small list files and its own module, whatever the number of adapters.
 * Only an id that no enabled built-in has imports the lists' module entries.
 */
export async function loadAgent(id: string, context: LoadContext): Promise<LoadedAgent | undefined> {
  if (!AGENT_ID.test(id)) return undefined;
  const layers = userLayers(context);
  const enabled = effectivePluginList(layers).enabled;
  const entry = enabled.find((candidate) => candidate.spec === `agents/${id}`);
  const adapter = entry && (await builtinPlugin(entry.spec))?.agents?.find((agent) => agent.id === id);
  if (entry && adapter) return { adapter, entry, layers };
  return customAgent(id, context, enabled, layers);
}

/**
 * Every agent the plugin lists enable (the built-in list, the user's, the project's), in list order, checked as the
 * kernel checks them (src/core/agent.ts addAgent), found as loadAgent finds one: without the kernel (tracer rule).
 */
export async function loadEnabledAgents(context: LoadContext): Promise<Array<AgentAdapter & { plugin: string }>> {
  const { importPlugin, projectLayer } = await import('./custom-agents.js');
  const layers = userLayers(context);
  const project = projectLayer(context);
  const agents: Array<AgentAdapter & { plugin: string }> = [];
  for (const entry of effectivePluginList(project ? [...layers, project] : layers).enabled) {
    const builtin = builtinPluginPath(entry.spec) !== undefined;
    // Only `agents/<id>` of the built-in plugins brings agents; the others are families and fallbacks.
    if (builtin ? !entry.spec.startsWith('agents/') : entry.source === 'builtin') continue;
    const plugin = builtin ? await builtinPlugin(entry.spec) : await importPlugin(entry);
    for (const agent of plugin?.agents ?? []) addAgent(agents, agent, plugin?.name ?? entry.spec);
  }
  return agents;
}

/** The built-in plugin list and the user's, read as the hook reads lists (never moved aside). */
function userLayers(context: LoadContext): PluginLayer[] {
  return [listLayer(BUILTIN_LIST_FILE, 'builtin'), listLayer(homePaths(context.home).plugins, 'user')];
}

/** A built-in plugin's module by its spec (`agents/claude-code`), or undefined when no built-in has that spec. */
async function builtinPlugin(spec: string): Promise<{ name?: string; agents?: AgentAdapter[] } | undefined> {
  const path = builtinPluginPath(spec);
  return path ? ((await import(pathToFileURL(path).href)) as { default?: { name?: string; agents?: AgentAdapter[] } }).default : undefined;
}

/** An adapter, the plugin-list entry that brought it, and the built-in and user lists it was found with. */
export interface LoadedAgent {
  adapter: AgentAdapter;
  entry: PluginEntry;
  layers: PluginLayer[];
}

/**
 * Whether the project's own `plugins` setting (project-config.json, read as
 * the hook reads lists) leaves the adapter's plugin enabled: `!agents/<id>`
 * there switches the agent off for that project alone.
 */
function enabledInProject(loaded: LoadedAgent, projectDir: string): boolean {
  // Joined here rather than through config-files.js, whose state-file helpers the hook must not load.
  const project = listLayer(join(projectDir, PROJECT_STATE_FILES.config), 'project');
  if (project.entries.length === 0) return true;
  // The same plugin by any listing: a later `agents/<id>` in the setting switches the built-in back on.
  const key = entryKey(loaded.entry.spec, loaded.entry.file);
  return effectivePluginList([...loaded.layers, project]).enabled.some((candidate) => entryKey(candidate.spec, candidate.file) === key);
}

/** An agent brought by a module entry of the user's or the project's plugin list. */
async function customAgent(
  id: string,
  context: LoadContext,
  userEnabled: readonly PluginEntry[],
  layers: PluginLayer[],
): Promise<LoadedAgent | undefined> {
  const { importPlugin, projectLayer } = await import('./custom-agents.js');
  const project = projectLayer(context);
  const entries = project ? effectivePluginList([...layers, project]).enabled : userEnabled;
  for (const entry of entries) {
    if (entry.source === 'builtin' || builtinPluginPath(entry.spec)) continue;
    const plugin = await importPlugin(entry);
    const adapter = plugin.agents?.find((candidate) => candidate.id === id);
    if (adapter) return { adapter, entry, layers };
  }
  return undefined;
}
