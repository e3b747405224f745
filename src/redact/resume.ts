// A transcript grows by appending: every Stop snapshots it whole, but only its
// new lines need redacting. Beside the snapshot tracer keeps where the last one
// stopped (`conversations/.redacted-<conversation>.json`): how many bytes of the
// transcript, their SHA-256, how many bytes of the redacted snapshot they became,
// and the redactor's signature. The next snapshot of the conversation hashes
// that prefix of the transcript again; when it is unchanged and the redactor is
// the same (the same rules, the same salt), the snapshot starts with those bytes
// of the last one and redacts only the rest. Anything else (a transcript rewritten,
// a rule added, the old snapshot gone) redacts the whole transcript again.
//
// A line still being written when the snapshot is taken (no newline yet) is
// redacted but not counted: the next snapshot redacts it again, whole.
import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../files/atomic-write.js';
import type { Redactor } from './engine.js';
import { redactedSegments } from './stream.js';

export interface ResumeState {
  signature: string;
  /** Bytes of the transcript, whole lines, that the snapshot `blob` holds redacted. */
  source_bytes: number;
  source_sha256: string;
  /** What those bytes became: the first `redacted_bytes` of `blob`. */
  redacted_bytes: number;
  blob: string;
}

export interface ResumableSnapshot {
  bytes(transcriptPath: string, conversationId: string, exported?: AsyncIterable<Buffer>): AsyncIterable<Buffer>;
  stored(conversationId: string, sha256: string): Promise<void>;
}

/** `blobPath`: where the conversation cache keeps a sha's bytes. */
export function resumableSnapshot(
  projectDir: string,
  redactor: Redactor,
  signature: string,
  blobPath: (sha256: string) => string,
): ResumableSnapshot {
  const progress = new Map<string, { hash: Hash; source: number; redacted: number }>();
  return {
    async *bytes(transcriptPath, conversationId, exported) {
      if (exported) {
        // Written out of the agent's database afresh each time: nothing to resume from, all of it is redacted.
        progress.delete(conversationId);
        for await (const { output } of redactedSegments(exported, redactor)) yield* output;
        return;
      }
      const resume = await resumePoint(projectDir, conversationId, signature, transcriptPath, blobPath);
      const done = resume ?? { hash: createHash('sha256'), source: 0, redacted: 0 };
      progress.set(conversationId, done);
      if (resume && resume.redacted > 0) yield* createReadStream(resume.blob, { end: resume.redacted - 1 }) as AsyncIterable<Buffer>;
      let whole = true;
      const tail = createReadStream(transcriptPath, { start: done.source }) as AsyncIterable<Buffer>;
      for await (const { input, output } of redactedSegments(tail, redactor)) {
        yield* output;
        // Only whole lines count: a line cut short is redacted again next time.
        whole &&= input.length > 0 && input[input.length - 1] === 0x0a;
        if (!whole) continue;
        done.hash.update(input);
        done.source += input.length;
        for (const piece of output) done.redacted += piece.length;
      }
    },
    async stored(conversationId, sha256) {
      const done = progress.get(conversationId);
      progress.delete(conversationId);
      if (!done) return;
      const state: ResumeState = {
        signature,
        source_bytes: done.source,
        source_sha256: done.hash.digest('hex'),
        redacted_bytes: done.redacted,
        blob: sha256,
      };
      // Only a shortcut: when it cannot be written, the next snapshot redacts everything.
      await writeFileAtomic(statePath(projectDir, conversationId), JSON.stringify(state), { mode: 0o600 }).catch(() => undefined);
    },
  };
}

function statePath(projectDir: string, conversationId: string): string {
  return join(projectDir, 'conversations', `.redacted-${encodeURIComponent(conversationId)}.json`);
}

/** Where the last snapshot's redaction can be resumed from, when it can: its transcript prefix is unchanged, its bytes still cached. */
async function resumePoint(
  projectDir: string,
  conversationId: string,
  signature: string,
  transcriptPath: string,
  blobPath: (sha256: string) => string,
): Promise<{ hash: Hash; source: number; redacted: number; blob: string } | undefined> {
  let state: ResumeState;
  try {
    state = JSON.parse(await readFile(statePath(projectDir, conversationId), 'utf8')) as ResumeState;
  } catch {
    return undefined;
  }
  const valid =
    state.signature === signature &&
    Number.isSafeInteger(state.source_bytes) &&
    Number.isSafeInteger(state.redacted_bytes) &&
    state.source_bytes > 0 &&
    typeof state.blob === 'string' &&
    /^[0-9a-f]{64}$/.test(state.blob);
  if (!valid) return undefined;
  const blob = blobPath(state.blob);
  const [source, cached] = await Promise.all([stat(transcriptPath).catch(() => undefined), stat(blob).catch(() => undefined)]);
  if (!source || !cached || source.size < state.source_bytes || cached.size < state.redacted_bytes) return undefined;
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(transcriptPath, { end: state.source_bytes - 1 }) as AsyncIterable<Buffer>) hash.update(chunk);
  // The hash goes on over the new lines, so digest a copy.
  if (hash.copy().digest('hex') !== state.source_sha256) return undefined;
  return { hash, source: state.source_bytes, redacted: state.redacted_bytes, blob };
}
