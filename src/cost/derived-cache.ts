// Figures that take git a while to work out (the fate of a range's AI lines,
// the lines still there at the default branch's tip), kept in
// `<project>/cache/outcomes.json` under a key that names everything they were
// computed from (commit ids, not ref names; the size and time of
// ledgers.jsonl). A changed input is a new key, so an entry is never stale;
// the newest few are kept. Only a cache: losing it costs the time to compute.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_STATE_FILES } from '../store/home.js';
import { sha256Hex } from '../core/content-id.js';
import { writeFileAtomic } from '../files/atomic-write.js';
import { ensureDir } from '../files/index.js';

export const DERIVED_CACHE_FILE = join(PROJECT_STATE_FILES.cache, 'outcomes.json');
const KEPT = 32;
const VERSION = 1;

interface CacheFile {
  v: number;
  entries: Array<{ key: string; value: unknown }>;
}

/** A file of its own and how many entries it keeps, for values too large to share outcomes.json. */
export interface CacheShelf {
  file: string;
  kept: number;
}

const OUTCOMES: CacheShelf = { file: DERIVED_CACHE_FILE, kept: KEPT };

/** The cached value under a key made of `parts`, else `compute()`'s, kept for next time. */
export async function cachedDerived<T>(
  projectDir: string,
  parts: readonly unknown[],
  compute: () => Promise<T>,
  shelf: CacheShelf = OUTCOMES,
): Promise<T> {
  const key = sha256Hex(JSON.stringify([VERSION, ...parts]));
  const path = join(projectDir, shelf.file);
  const file = read(path);
  const found = file.entries.find((entry) => entry.key === key);
  if (found) return found.value as T;
  const value = await compute();
  // Read again: another run may have added its own entry meanwhile.
  const latest = read(path);
  const entries = [{ key, value }, ...latest.entries.filter((entry) => entry.key !== key)].slice(0, shelf.kept);
  try {
    await ensureDir(join(projectDir, PROJECT_STATE_FILES.cache));
    await writeFileAtomic(path, JSON.stringify({ v: VERSION, entries } satisfies CacheFile));
  } catch {
    // A read-only home computes it again next time.
  }
  return value;
}

/** What identifies ledgers.jsonl as it is now (it only grows, so size and mtime change with every append). */
export function ledgersStamp(projectDir: string): string {
  return fileStamp(join(projectDir, 'ledgers.jsonl'));
}

/** A file's size and modification time: changed by every write. */
export function fileStamp(path: string): string {
  try {
    const { size, mtimeMs } = statSync(path);
    return `${size}:${mtimeMs}`;
  } catch {
    return 'none';
  }
}

function read(path: string): CacheFile {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as Partial<CacheFile>;
    if (value.v === VERSION && Array.isArray(value.entries)) return value as CacheFile;
  } catch {
    // Missing or damaged: computed again.
  }
  return { v: VERSION, entries: [] };
}
