// The public plugin API: `import type { TracerPlugin } from 'tracer/plugin'`.
// Everything a plugin may rely on is exported here and nowhere else; the built-in
// plugins in src/plugins/ use exactly this (test/plugins/public-api.test.ts fails
// when one imports anything else). Guide: docs/plugins.md.
export { STAGE } from '../kernel/stages.js';
export { FeatureMissing, isFeatureMissing, isItemsRefused, ItemsRefused } from '../kernel/transport.js';
// Errors and content ids.
export { ExitCode, isTracerError, TracerError } from '../core/errors.js';
export { contentId, withContentId } from '../core/content-id.js';
// Local storage of a family's records and bytes.
export { storeOf } from '../engine/family-store.js';
export { jsonlFamilyStore } from '../engine/jsonl-family-store.js';
export { blobFamilyStore, CONVERSATIONS_FAMILY, conversationStore } from '../engine/conversation-store.js';
export { BLOB_READ_CHUNK, writeVerifiedBlob } from '../engine/blob-file.js';
// Remotes and their credentials, for plugins that resolve remotes.
export { parseRemoteUrl } from '../core/remote-url.js';
export { chooseRemoteName, readRemotes, requireRemote } from '../store/remotes.js';
export { resolveCredentials } from '../store/credentials.js';
export { readGlobalConfig, readProjectConfig } from '../store/config-files.js';
