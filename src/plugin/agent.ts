// `tracer/plugin/agent`: what an agent adapter uses at run time. `tracer hook`
// loads the adapter on every tool use of its agent, so this entry is kept light:
// payload helpers, file-write shapes and transcript readers, nothing of the
// kernel. `tracer/plugin` re-exports all of it. Guide: docs/plugins.md.
import type { TracerPlugin } from '../kernel/kernel.js';
import type { AgentAdapter } from '../core/agent.js';

export type {
  AgentAdapter,
  AgentInstall,
  ClosingMessage,
  FilesInstall,
  HookContext,
  HookedEvent,
  OwnedFile,
  SettingsInstall,
} from '../core/agent.js';
export type { FileWrite, HookEvent, Payload, ReportedTokens, WrittenFragment } from '../capture/hook/hook-event.js';
// An adapter's `transcript()` resolves to a TranscriptFormat; its helpers are in the heavier 'tracer/plugin/transcript'.
export type {
  DiffLine,
  ItemDraft,
  ReadState,
  TranscriptFormat,
  TranscriptItem,
  TranscriptRole,
  UsageDraft,
  UsageReader,
  UsageRecord,
  UsageReport,
  UsageTokens,
} from '../core/transcript.js';
export {
  AGENT_ID,
  configDir,
  userHome,
  claudeFileWrite,
  claudeFileWrites,
  derivedSession,
  editFragments,
  eventKey,
  FILE_TOOLS,
  isObject,
  jsonObject,
  optionalString,
  PayloadError,
  promptLength,
  reportedTokens,
  requiredString,
  toolWrite,
} from '../capture/hook/hook-event.js';
export { isApplyPatch, parseApplyPatch } from '../capture/hook/apply-patch.js';
export { findFromEnd, lastTextInJsonl, linesFromEnd, parseJsonLine, textBlocks, type JsonLine } from '../capture/hook/tail-lines.js';
export { parseWellFormedJson } from '../capture/hook/well-formed.js';

/** The plugin module of one agent: `export default agentPlugin(adapter)`; its name is `agents/<id>`. */
export function agentPlugin(adapter: AgentAdapter): TracerPlugin & { agents: AgentAdapter[] } {
  return { name: `agents/${adapter.id}`, agents: [adapter], apply() {} };
}
