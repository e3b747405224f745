// On stop and session-end, the transcript is snapshotted into the project's
// content-addressed cache (spec §2.2). It is copied and hashed in one streamed
// pass (a transcript can be hundreds of MB and is never held whole), then renamed
// to `<sha[:2]>/<sha>`. Earlier snapshots stay; the conversation store appends one
// row per new snapshot and points `_index.json` at the newest. Bytes already
// snapshotted for this conversation add nothing.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { conversationStore, INDEX_FILE } from '../../engine/conversation-store.js';
import { writeStreamAtomic } from '../../files/atomic-write.js';
import { ensureDir, unwritable } from '../../files/index.js';
import { PRIVATE_DIR_MODE } from '../../store/home.js';

export interface Snapshot {
  content_sha256: string;
  size: number;
  /** False when these bytes were already this conversation's snapshot. */
  added: boolean;
}

/**
 * `redaction` gives the bytes to cache, redacted, before they are hashed and
 * written, so the cache never holds what it takes out and the content id is the
 * redacted bytes'; `stored` learns that id; `mark` is what the row then says of
 * them (src/redact/mark.ts). `exported`, when given, are the transcript (an
 * agent's reader wrote them out of its database); else the file at `transcriptPath` is.
 */
export interface SnapshotRedaction {
  bytes(transcriptPath: string, conversationId: string, exported?: AsyncIterable<Buffer>): AsyncIterable<Buffer>;
  stored?(conversationId: string, sha256: string): Promise<void>;
  mark: Record<string, unknown>;
}

export async function snapshotTranscript(
  projectDir: string,
  conversationId: string,
  transcriptPath: string,
  now: string,
  redaction?: SnapshotRedaction,
  exported?: AsyncIterable<Buffer>,
): Promise<Snapshot> {
  const store = conversationStore(projectDir);
  const cacheDir = join(projectDir, 'conversations');
  const source = expandHome(transcriptPath);
  const chunks = redaction ? redaction.bytes(source, conversationId, exported) : (exported ?? chunksOf(source));
  const { sha256, size } = await cacheStream(cacheDir, chunks, (sha) => store.blobPath!(sha));
  await redaction?.stored?.(conversationId, sha256);
  if (await isKnownSnapshot(store, cacheDir, conversationId, sha256)) return { content_sha256: sha256, size, added: false };
  await store.append([{ conversation_id: conversationId, content_sha256: sha256, size, ts: now, ...redaction?.mark }]);
  return { content_sha256: sha256, size, added: true };
}

/** The name temp files are made beside: `conversations/.snapshot.tmp-<pid>-<random>`. */
const SNAPSHOT_TEMP_NAME = '.snapshot';

/**
 * Copied and hashed in one pass through the atomic write (every byte written,
 * fsynced, a temp file left by a killed hook removed by the next snapshot), then
 * renamed to its content-addressed name. Bytes already cached
 * are renamed over their equal copy. Also how a push caches the redacted copy it sends.
 */
export async function cacheStream(
  cacheDir: string,
  chunks: AsyncIterable<Uint8Array>,
  blobPath: (sha256: string) => string,
): Promise<{ sha256: string; size: number }> {
  await localWrite(cacheDir, () => ensureDir(cacheDir, PRIVATE_DIR_MODE));
  const hash = createHash('sha256');
  let sha256 = '';
  const written = await writeStreamAtomic(join(cacheDir, SNAPSHOT_TEMP_NAME), chunks, {
    mode: 0o644,
    onChunk: (chunk) => hash.update(chunk),
    beforeRename: async () => {
      sha256 = hash.digest('hex');
      const destination = blobPath(sha256);
      await localWrite(destination, () => ensureDir(dirname(destination), PRIVATE_DIR_MODE));
      return destination;
    },
  });
  return { sha256, size: written.size };
}

/** Opened when the write starts reading, not before: a missing transcript must fail that read, not crash the hook. */
async function* chunksOf(path: string): AsyncGenerator<Buffer> {
  yield* createReadStream(path) as AsyncIterable<Buffer>;
}

async function localWrite<T>(path: string, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw unwritable(path, error);
  }
}

/** The index already names these bytes (the common case: stop twice, nothing new), or a row holds the pair. */
async function isKnownSnapshot(
  store: ReturnType<typeof conversationStore>,
  cacheDir: string,
  conversationId: string,
  sha256: string,
): Promise<boolean> {
  try {
    const index = JSON.parse(await readFile(join(cacheDir, INDEX_FILE), 'utf8')) as Record<string, unknown>;
    if (index[conversationId] === sha256) return true;
  } catch {
    // no index yet, or one the store will report when it reads it
  }
  const wanted = `${conversationId}:${sha256}`;
  for await (const row of store.records(() => undefined)) if (store.keyOf(row) === wanted) return true;
  return false;
}

function expandHome(path: string): string {
  return path === '~' || path.startsWith('~/') ? join(homedir(), path.slice(1)) : path;
}
