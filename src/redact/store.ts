// `tracer redact --store`: the project's own store rewritten with today's rules,
// every family that declares text (summaries, transcripts), records marked
// redacted included (a team rule added since then applies to them too). Each
// store rewrites its files atomically; transcript bytes that held a secret are
// replaced in the cache and the old ones removed. sent-as.jsonl then says that a
// remote's row under the old key is this record, so a pull does not bring the
// unredacted row back.
import { storeOf } from '../engine/family-store.js';
import { recordSentAs } from '../engine/sent-as.js';
import type { Kernel } from '../kernel/kernel.js';
import type { Redactor } from './engine.js';
import { redactedRecord } from './outgoing.js';

export interface StoreFamilyReport {
  family: string;
  /** Records replaced by a redacted copy. */
  replaced: number;
  /** Why the family was left alone (its store cannot be rewritten). */
  skipped?: string;
}

export async function redactStore(kernel: Kernel, projectDir: string, redactor: Redactor): Promise<StoreFamilyReport[]> {
  const reports: StoreFamilyReport[] = [];
  for (const family of kernel.families) {
    if (!family.text) continue;
    const store = storeOf(family, projectDir);
    if (!store.rewrite) {
      reports.push({ family: family.name, replaced: 0, skipped: `the ${family.plugin} plugin's store cannot be rewritten` });
      continue;
    }
    const replaced = await store.rewrite(async (record) => {
      const copy = await redactedRecord(family, record, store, redactor);
      const [before, after] = [store.keyOf(record), copy && store.keyOf(copy)];
      // A remote may hold the record under its old key (pushed, or pulled from there): the next pull must not
      // bring it back as another. Said before the file is replaced: said for nothing, it is harmless.
      if (before && after && before !== after) recordSentAs(projectDir, family.name, after, before);
      return copy;
    });
    reports.push({ family: family.name, replaced });
  }
  return reports;
}
