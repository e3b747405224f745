import { defaultRoute, type FamilyDefinition } from '../kernel/families.js';
import type { FamilyStore } from '../kernel/types.js';
import type { TracerPlugin } from '../kernel/kernel.js';
import { blobFamilyStore, type BlobFamilyLayout } from '../engine/conversation-store.js';

/** Spec §4.3, §8: transcripts below 256 KiB go inline, larger ones through the blob routes. */
export const INLINE_BELOW_BYTES = 256 * 1024;

export const CONVERSATIONS_FAMILY: FamilyDefinition = {
  name: 'conversations',
  route: defaultRoute('conversations'),
  idMember: null,
  identity: ['conversation_id', 'content_sha256'],
  required: ['conversation_id', 'content_sha256', 'size', 'ts'],
  storage: ['conversations', 'conversations.jsonl'],
  members: { conversation_id: 'string', content_sha256: 'sha256', size: 'byte-size', ts: 'timestamp', content_base64: 'base64' },
  blob: { shaMember: 'content_sha256', sizeMember: 'size', inlineMember: 'content_base64', inlineBelow: INLINE_BELOW_BYTES },
};

const CONVERSATIONS_LAYOUT: BlobFamilyLayout = { dir: 'conversations', rows: 'conversations.jsonl', idMember: 'conversation_id' };

/** The one store of a project's transcripts: sync and the capture hooks both write through it. */
export function conversationStore(projectDir: string, definition: FamilyDefinition = CONVERSATIONS_FAMILY): FamilyStore {
  return blobFamilyStore(projectDir, definition, CONVERSATIONS_LAYOUT);
}

/**
 * The conversations family (spec §2.2, §4.3): transcripts live in the
 * content-addressed cache `conversations/<sha[:2]>/<sha>`; a row is identified
 * by the pair (conversation_id, content_sha256), not by a content id. One row
 * per snapshot goes to `conversations.jsonl`; `conversations/_index.json` maps
 * each conversation_id to its freshest snapshot.
 */
const conversationsFamily: TracerPlugin = {
  name: 'conversations',
  apply(kernel) {
    kernel.registerFamily(CONVERSATIONS_FAMILY, {
      manifestKey: 'conversation_keys',
      // Spec §4.2: conversations follow trace pushes, so `--only traces` takes them along.
      follows: 'traces',
      store: (projectDir, definition) => conversationStore(projectDir, definition),
    });
  },
};

export default conversationsFamily;
