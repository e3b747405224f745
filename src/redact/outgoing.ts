// Data captured before redaction existed may hold secrets. A push scans what it
// is about to send that is not marked redacted and sends a redacted copy: a
// family's text members (a summary) redacted with a new content id, a blob (a
// transcript) redacted into the cache under its new sha. The stored record stays
// as it is; the push engine records that it went out as the copy (sent-as.jsonl),
// so the next push is a no-op and a pull takes the copy for the stored record.
// `tracer redact --store` rewrites the store itself.
import { createReadStream } from 'node:fs';
import { dirname } from 'node:path';
import { withContentId } from '../core/content-id.js';
import { cacheStream } from '../capture/hook/transcript.js';
import type { RegisteredFamily } from '../kernel/families.js';
import type { Kernel } from '../kernel/kernel.js';
import type { FamilyStore, OutgoingRewrite, SyncSession } from '../kernel/types.js';
import type { Redactor } from './engine.js';
import { isMarkedRedacted, REDACTED_MEMBER } from './mark.js';
import { kernelDetectors } from './hooks.js';
import { buildRedactor, type BuiltRedactor } from './redactor.js';
import { redactStream, textRuns } from './stream.js';
import { textMembers } from './text-members.js';

export function outgoingRewrite(kernel: Kernel, session: SyncSession, family: RegisteredFamily): OutgoingRewrite {
  let built: Promise<BuiltRedactor> | undefined;
  const redactor = async () => {
    built ??= buildRedactor(kernelDetectors(kernel), {
      purpose: 'push',
      home: kernel.context.home,
      root: session.project.git.worktree,
      projectDir: session.project.dir,
      env: kernel.context.env,
      fingerprint: 'home',
      onProblem: (problem) => session.warn(problem),
    });
    return (await built).redactor;
  };
  return {
    reason: 'redaction',
    async rewrite(record, store) {
      if (isMarkedRedacted(record)) return undefined;
      return redactedRecord(family, record, store, await redactor());
    },
  };
}

/** The record redacted and marked, or undefined when it holds nothing to redact. Shared with `tracer redact --store`. */
export async function redactedRecord(
  family: RegisteredFamily,
  record: Record<string, unknown>,
  store: FamilyStore,
  redactor: Redactor,
): Promise<Record<string, unknown> | undefined> {
  let copy: Record<string, unknown> | undefined;
  for (const member of textMembers(family, record)) {
    const redacted = await redactedValue(record[member], redactor);
    if (redacted.found) (copy ??= { ...record })[member] = redacted.value;
  }
  if (family.blob && family.text?.blob && store.blobPath) {
    const sha = record[family.blob.shaMember];
    if (typeof sha === 'string') {
      const bytes = await redactedBlob(store.blobPath(sha), store.blobPath.bind(store), redactor);
      if (bytes && bytes.sha256 !== sha)
        Object.assign((copy ??= { ...record }), { [family.blob.shaMember]: bytes.sha256, [family.blob.sizeMember]: bytes.size });
    }
  }
  if (!copy) return undefined;
  copy[REDACTED_MEMBER] = true;
  return family.idMember === null ? copy : withContentId(copy, family.idMember);
}

/**
 * A text member redacted: a string, or any other value as the service's gate reads it, its JSON (the wire
 * contract leaves a summary's members free), redacted as a JSON line and read back: a secret under its key
 * (`{"password": "…"}`) is found as the gate finds it, and the value stays JSON.
 */
async function redactedValue(value: unknown, redactor: Redactor): Promise<{ value: unknown; found: boolean }> {
  if (value === null || value === undefined) return { value, found: false };
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const result = await redactor.redact(text);
  if (result.findings.length === 0) return { value, found: false };
  return { value: typeof value === 'string' ? result.text : (JSON.parse(result.text) as unknown), found: true };
}

/** The blob's bytes redacted into the cache beside it; undefined when nothing was found (or the bytes are not there: the push reports that). */
async function redactedBlob(
  path: string,
  blobPath: (sha256: string) => string,
  redactor: Redactor,
): Promise<{ sha256: string; size: number } | undefined> {
  async function* bytes() {
    yield* createReadStream(path) as AsyncIterable<Buffer>;
  }
  // Read once to find, and once more to redact only when there is something: most blobs hold nothing.
  try {
    let found = false;
    for await (const { text } of textRuns(bytes())) {
      if ((await redactor.find(text)).length > 0) {
        found = true;
        break;
      }
    }
    if (!found) return undefined;
    return await cacheStream(dirname(dirname(path)), redactStream(bytes(), redactor), blobPath);
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return undefined;
    throw error;
  }
}
