// `tracer redact --store`: the project's own store rewritten with today's rules,
// every family that declares text (summaries, transcripts), records marked
// redacted included (a team rule added since then applies to them too). Each
// store rewrites its files atomically; transcript bytes that held a secret are
// replaced in the cache and the old ones removed.
import { storeOf } from '../engine/family-store.js';
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
    const replaced = await store.rewrite((record) => redactedRecord(family, record, store, redactor));
    reports.push({ family: family.name, replaced });
  }
  return reports;
}
