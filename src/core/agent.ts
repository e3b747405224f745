// What an agent is to tracer, as types: the adapter a plugin brings
// (src/plugins/agents/ holds the built-ins; docs/plugins.md, "An agent") and the
// HookEvent it turns the agent's hook payloads into. In core because the kernel
// collects the adapters and the capture code runs them; neither owns the shape.
// An agent adapter: where the agent reads its hook (or plugin) configuration,
// how `tracer init` adds and removes tracer's entries there, and how one of its
// hook payloads becomes a HookEvent. `tracer hook <agent> <event>` imports only
// the one adapter module it needs, so an adapter module must stay light (it
// imports `tracer/plugin/agent`, never `tracer/plugin`).

import { ExitCode, TracerError } from './errors.js';
import type { TranscriptFormat } from './transcript.js';

export type Payload = Record<string, unknown>;

/** Lowercase letters, digits and dashes: `tracer init --agents <id>`, `tracer hook <id> <event>`, the traces' `agent`. */
export const AGENT_ID = /^[a-z0-9][a-z0-9-]{0,39}$/;

/**
 * Adds the agent a plugin brings to `agents`, named after its plugin: refused when it lacks a valid id, an install
 * or a normalize (invalid_plugin), or when another plugin already brought its id (duplicate_agent). The kernel and
 * the commands that find the agents without it (tracer rule) check alike.
 */
export function addAgent(
  agents: Array<AgentAdapter & { plugin: string }>,
  agent: AgentAdapter,
  plugin: string,
): AgentAdapter & { plugin: string } {
  if (typeof agent?.id !== 'string' || !AGENT_ID.test(agent.id) || typeof agent.normalize !== 'function' || !agent.install) {
    throw new TracerError(
      'invalid_plugin',
      `Plugin "${plugin}" brings an agent without a valid id (lowercase letters, digits, dashes), install or normalize; fix the plugin.`,
      { exitCode: ExitCode.localState },
    );
  }
  const other = agents.find((known) => known.id === agent.id);
  if (other) {
    throw new TracerError(
      'duplicate_agent',
      `Plugins "${other.plugin}" and "${plugin}" both bring the agent "${agent.id}"; switch one of them off (tracer plugins shows the list).`,
      { exitCode: ExitCode.localState },
    );
  }
  const added = Object.assign(Object.create(agent) as AgentAdapter, agent, { plugin });
  agents.push(added);
  return added;
}

export interface HookEvent {
  /** The adapter's id. */
  agent: string;
  /** The agent's own event name, as given on the command line. */
  event: string;
  conversationId: string;
  turnId?: string;
  model?: string;
  tool?: string;
  /** Folder the agent works in: where the project is looked up and relative paths start. */
  cwd?: string;
  /** Files the agent has just written (only on events that run after the write). */
  writes: FileWrite[];
  /** Length of the user's prompt; the text itself is never kept. */
  promptChars?: number;
  /** Set on stop and session-end events: the transcript is snapshotted then. */
  transcriptPath?: string;
  /**
   * The transcript path names the agent's database, not a file of the
   * conversation: the adapter's reader (`transcript().snapshot`) makes the
   * bytes that are snapshotted (goose, Kiro CLI's SQLite store).
   */
  transcriptExport?: true;
  endsTurn: boolean;
  /** The agent's own closing message, when its payload carries one (Codex, Claude Code, Cursor's afterAgentResponse). */
  reportedSummary?: string;
  /** Token counts the agent reports in the payload for the turn (Cursor's stop and afterAgentResponse): kept on the trace row. */
  usage?: ReportedTokens;
  /** Set when the call carries nothing to record (a Codex shell command that is not a patch, a read): no row is written. */
  nothingToRecord?: true;
}

/** Token counts a payload reports, each a whole number from 0 (reportedTokens in tracer/plugin/agent checks them). */
export interface ReportedTokens {
  input: number;
  output: number;
  cacheWrite?: number;
  cacheRead?: number;
}

export interface FileWrite {
  /** As given by the agent: absolute, or relative to `cwd`. */
  filePath: string;
  fragments: WrittenFragment[];
}

export interface WrittenFragment {
  /** Text the agent put into the file. */
  text: string;
  /** Every occurrence is the agent's (Edit with replace_all); else the first one found. */
  everyOccurrence?: boolean;
  /** The text is whole lines (a patch's added lines): match only at line boundaries. */
  wholeLines?: boolean;
}

export interface AgentAdapter {
  id: string;
  /** The agent's own name, for help and listings ("Gemini CLI"). */
  title: string;
  install: AgentInstall;
  /** Said after `tracer init` installed the hooks: a step the agent asks of the user (trusting a folder, enabling hooks). */
  installNote?: string;
  /** Where `tracer rule add` writes this agent's rules, relative to the working tree; none: the agent gets no rules. */
  rules?: { dir: string; extension: '.md' | '.mdc' };
  /** One hook payload (parsed JSON) of the agent's `event` as a HookEvent; throws PayloadError when it cannot be recorded. */
  normalize(event: string, payload: Payload, context: HookContext): HookEvent;
  /**
   * Another agent's id when the payload is that agent's (Cursor runs Claude
   * Code's hooks with its own payloads): the hook loads that adapter instead.
   */
  handOff?(payload: Payload): string | undefined;
  /** For a payload handed over by another adapter: false when this agent's own hooks record it already. */
  acceptsHandOff?(payload: Payload, context: HookContext): boolean;
  /**
   * The closing message of a turn read from the agent's transcript, when the
   * payload carries none (or to check the one it carries). `final` false: the
   * transcript does not hold the turn's last message yet, and the next event
   * snapshots it again.
   */
  closingMessage?(transcriptPath: string, reported: string | undefined): Promise<ClosingMessage | undefined>;
  /**
   * How tracer reads this agent's transcripts (the viewers, search, usage and
   * cost): a function that imports the reader module on first call, so that the
   * hook, which loads this adapter on every tool use, never loads it. None:
   * the agent's transcripts are not read.
   */
  transcript?(): Promise<TranscriptFormat>;
}

export interface ClosingMessage {
  text?: string;
  final: boolean;
}

export interface HookContext {
  env: NodeJS.ProcessEnv;
  /** The folder the hook command runs in. */
  cwd: string;
}

/** Hook settings tracer merges its entries into, next to the user's own. */
export interface SettingsInstall {
  kind: 'settings';
  /**
   * `grouped`: Claude Code's layout, `{hooks: {Event: [{matcher, hooks: [{type: "command", command}]}]}}`;
   * `flat`: `{hooks: {event: [{command}]}}` (Cursor, Windsurf, Copilot), a matcher beside the command when given;
   * `list`: `{hooks: [{name, trigger, matcher, action: {type: "command", command}}]}` (Kiro's versioned hook files).
   */
  layout: 'grouped' | 'flat' | 'list';
  /** Relative to the top of the working tree. */
  projectFile: string;
  /** The user-wide file, for `tracer init --global`; none: the agent has no user-wide hooks tracer installs. */
  globalFile?(env: NodeJS.ProcessEnv): string;
  /** Members a file tracer creates starts with, before `hooks` (`{version: 1}`). */
  skeleton?: Record<string, unknown>;
  events: readonly HookedEvent[];
  /** Flat layout: the member holding the command line (default `command`; Copilot's is `bash`). */
  commandMember?: string;
  /** Flat layout: members every tracer entry carries besides the command (`{type: "command", timeoutSec: 30}`). */
  entryMembers?: Record<string, unknown>;
}

/** Files that are tracer's alone (a plugin, executable hook scripts), written into a folder the agent reads. */
export interface FilesInstall {
  kind: 'files';
  /** The folder, relative to the top of the working tree. */
  projectDir: string;
  globalDir?(env: NodeJS.ProcessEnv): string;
  /** The files, relative to the folder; `command(event)` is the shell command line that runs `tracer hook <id> <event>`. */
  files(command: (event: string) => string): OwnedFile[];
}

export interface OwnedFile {
  path: string;
  text: string;
  executable?: boolean;
}

export type AgentInstall = SettingsInstall | FilesInstall;

export interface HookedEvent {
  event: string;
  /** Tool-name filter for tool events: no trace is wanted for reads or shell commands. */
  matcher?: string;
}
