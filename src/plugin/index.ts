// The public plugin API: `import type { TracerPlugin } from 'tracer/plugin'`.
// Everything a plugin may rely on is exported here and nowhere else; the built-in
// plugins in src/plugins/ use exactly this (test/plugins/public-api.test.ts fails
// when one imports anything else). Guide: docs/plugins.md.

// Agents: an agent adapter and the helpers it uses (light enough for the hook path: 'tracer/plugin/agent').
export * from './agent.js';

// Redaction: detectors and their hook (light enough for the capture hooks: 'tracer/plugin/redact').
export * from './redact.js';

// Commands: a plugin's `commands` are classes of this clipanion (the CLI's own copy: a class of another
// copy would not parse), best extending TracerCommand: `this.context` has cwd, home, env and the streams,
// `await this.kernel()` the booted kernel, and failures are reported as the core commands' are.
export { Command, Option, UsageError } from 'clipanion';
export { TracerCommand } from '../cli/tracer-command.js';
export type { TracerContext } from '../cli/context.js';

// The kernel: plugins, hooks, families.
export type { Kernel, KernelContext, TracerPlugin } from '../kernel/kernel.js';
export type { KernelHookName, KernelHooks } from '../kernel/hooks.js';
export type { BlobContent, FamilyDefinition, FamilyPrivacy, MemberKind, RegisteredFamily, TextContent } from '../kernel/families.js';
export type {
  BlobFetch,
  BlobFetchResult,
  BlobUpload,
  BlobUploadResult,
  FamilyPlan,
  FamilyPullResult,
  FamilyStore,
  MissingRoute,
  OutgoingRewrite,
  PushLogEntry,
  PushOptions,
  RecordFilter,
  RemoteQuery,
  ResolvedRemote,
  RouteFallback,
  Scan,
  ScanMark,
  ScannedLine,
  SyncEvent,
  SyncSession,
} from '../kernel/types.js';
export { STAGE } from '../kernel/stages.js';

// Transports: how a session reaches its remote.
export type { ConnectRequest, Identity, PageAnswer, PageQuery, SendAnswer, Transport, TransportLimits } from '../kernel/transport.js';
export { FeatureMissing, isFeatureMissing, isItemsRefused, ItemsRefused } from '../kernel/transport.js';

// Errors and content ids.
export { ExitCode, isTracerError, TracerError, type TracerWarning } from '../core/errors.js';
export { contentId, withContentId } from '../core/content-id.js';
export { conversationIdsOfUrls, stringMember } from '../core/conversation-members.js';

// Local storage of a family's records and bytes.
export { storeOf } from '../engine/family-store.js';
export { jsonlFamilyStore } from '../engine/jsonl-family-store.js';
export { blobFamilyStore, CONVERSATIONS_FAMILY, conversationStore, type BlobFamilyLayout } from '../engine/conversation-store.js';
export { BLOB_READ_CHUNK, writeVerifiedBlob } from '../engine/blob-file.js';

// Remotes and their credentials, for plugins that resolve remotes.
export { parseRemoteUrl, type ParsedRemoteUrl } from '../core/remote-url.js';
export { chooseRemoteName, readRemotes, requireRemote, type RemoteRecord } from '../store/remotes.js';
export { resolveCredentials, type CredentialPurpose } from '../store/credentials.js';
export { readGlobalConfig, readProjectConfig } from '../store/config-files.js';
export type { Project } from '../store/project.js';

// Taking data back (issue 31): tombstones around a push or a pull. The module loads on first call.
export async function syncSessionTombstones(
  kernel: import('../kernel/kernel.js').Kernel,
  session: import('../kernel/types.js').SyncSession,
): Promise<void> {
  return (await import('../forget/session.js')).syncSessionTombstones(kernel, session);
}
export async function forgottenFilter(
  kernel: import('../kernel/kernel.js').Kernel,
  session: import('../kernel/types.js').SyncSession,
  family: string,
): Promise<import('../kernel/types.js').RecordFilter> {
  return (await import('../forget/session.js')).forgottenFilter(kernel, session, family);
}
export type { PrivacyChannel, WireTombstone } from '../protocol/privacy.js';

// Attribution: reconcile commits a merge button made, once their branch's ledgers are here
// (docs/attribution.md). The module loads on first call, so plugins that never call it pay nothing.
export type { ReconcileReport, ReconcileRequest } from '../attribution/reconcile/reconcile.js';
export async function reconcileCommits(
  request: import('../attribution/reconcile/reconcile.js').ReconcileRequest,
): Promise<import('../attribution/reconcile/reconcile.js').ReconcileReport> {
  const { reconcile } = await import('../attribution/reconcile/reconcile.js');
  return reconcile(request);
}

// Search (issue 32): the local index, a cache of the store, brought level with it. The module (and SQLite) loads on first call.
export async function updateSearchIndex(request: {
  projectDir: string;
  git?: { cwd: string; env?: NodeJS.ProcessEnv };
  formats?: import('../transcript/agents.js').FormatContext;
}): Promise<boolean> {
  const { existsSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { INDEX_FILE, syncIndex } = await import('../search/local-index.js');
  // No index yet: the first search builds it; a pull does not pay for an index nobody asked for.
  if (!existsSync(join(request.projectDir, INDEX_FILE))) return false;
  const { db } = await syncIndex(request);
  db.close();
  return true;
}
