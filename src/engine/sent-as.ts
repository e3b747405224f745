// sent-as.jsonl: records a push sent as another record (a rewrite, see
// OutgoingRewrite in kernel/types.ts: redaction of data captured before it
// existed), one line `{family, stored, sent}` each. The manifest lists the stored
// key, so the next push sends nothing; a pull takes a row with a sent key for
// the stored record it came from, so the copy never comes back as a second one.
// Append-only: a line torn by a crash is skipped, and the push that wrote it sends
// the same copy again next time (rewrites are deterministic).
import { join } from 'node:path';
import { appendRecord, readRecords } from '../store/jsonl.js';

export const SENT_AS_FILE = 'sent-as.jsonl';

export function recordSentAs(projectDir: string, family: string, stored: string, sent: string): void {
  appendRecord(join(projectDir, SENT_AS_FILE), { family, stored, sent });
}

/** The keys this project's records of `family` were sent as. */
export async function sentAsKeys(projectDir: string, family: string): Promise<Set<string>> {
  const keys = new Set<string>();
  for await (const row of readRecords<{ family?: unknown; sent?: unknown }>(join(projectDir, SENT_AS_FILE), {
    onCorrupt: () => undefined,
  })) {
    if (row?.family === family && typeof row.sent === 'string') keys.add(row.sent);
  }
  return keys;
}
