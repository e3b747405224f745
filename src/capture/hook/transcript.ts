import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { conversationStore, INDEX_FILE } from '../../engine/conversation-store.js';
import { PRIVATE_DIR_MODE } from '../../store/home.js';
import { pathExists } from '../../store/state-file.js';

/**
 * On stop and session-end, the transcript is snapshotted into the project's
 * content-addressed cache (spec §2.2). It is copied and hashed in one streamed
 * pass (a transcript can be hundreds of MB and is never held whole), then renamed
 * to `<sha[:2]>/<sha>`. Earlier snapshots stay; the conversation store appends one
 * row per new snapshot and points `_index.json` at the newest. Bytes already
 * snapshotted for this conversation add nothing.
 */
export interface Snapshot {
  content_sha256: string;
  size: number;
  /** False when these bytes were already this conversation's snapshot. */
  added: boolean;
}

export async function snapshotTranscript(
  projectDir: string,
  conversationId: string,
  transcriptPath: string,
  now: string,
): Promise<Snapshot> {
  const store = conversationStore(projectDir);
  const source = expandHome(transcriptPath);
  const cacheDir = join(projectDir, 'conversations');
  await mkdir(cacheDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const temporary = join(cacheDir, `.snapshot-${process.pid}-${randomBytes(4).toString('hex')}`);
  const { sha256, size } = await copyHashing(source, temporary);
  const destination = store.blobPath!(sha256);
  if (await pathExists(destination)) await rm(temporary, { force: true });
  else {
    await mkdir(dirname(destination), { recursive: true, mode: PRIVATE_DIR_MODE });
    await rename(temporary, destination);
  }
  if (await isKnownSnapshot(store, cacheDir, conversationId, sha256)) return { content_sha256: sha256, size, added: false };
  await store.append([{ conversation_id: conversationId, content_sha256: sha256, size, ts: now }]);
  return { content_sha256: sha256, size, added: true };
}

async function copyHashing(source: string, destination: string): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  const file = await open(destination, 'wx', 0o644);
  try {
    for await (const chunk of createReadStream(source) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      size += chunk.length;
      await file.write(chunk);
    }
    await file.close();
  } catch (error) {
    await file.close().catch(() => undefined);
    await rm(destination, { force: true });
    throw error;
  }
  return { sha256: hash.digest('hex'), size };
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
