import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import type { ServiceHandle } from '../../helpers/service.js';
import { canonicalJson } from '../../../src/core/content-id.js';
import {
  addCommitLink,
  addConversation,
  cacheDigest,
  addLedger,
  addSummary,
  addTrace,
  readConversation,
  syncState,
  transcript,
  type Machine,
} from '../../helpers/sync-fixtures.js';
import type { Dice } from './faults.js';

/**
 * What the reliability rounds seed and check: a batch of every family on one
 * machine, the on-disk integrity rules a killed process must not break, and a
 * census of what the service holds (read straight off the pull routes, so a row
 * stored twice would show).
 */

export interface SeedSize {
  traces: number;
  /** Transcript sizes in bytes; at or above 256 KiB they take the blob path. */
  transcripts: number[];
}

let clock = Date.UTC(2024, 6, 1);

/** Rows of every family, every trace attributed (so plain push and sync send them), transcripts as given. */
export function seed(m: Machine, d: Dice, label: string, size: SeedSize): void {
  const ids: string[] = [];
  for (let i = 0; i < size.traces; i++) ids.push(addTrace(m, { conversation_id: `${label}-conv-${i % 3}`, machine: label }).id);
  // Ledgers of a few dozen traces each, like real per-commit ledgers.
  for (let start = 0; start < ids.length; start += 40) addLedger(m, ids.slice(start, start + 40), { machine: label });
  for (let i = 0; i < 3; i++) addCommitLink(m, { machine: label, i });
  for (let i = 0; i < 2; i++) addSummary(m, { machine: label, i });
  size.transcripts.forEach((bytes, i) => {
    // A later snapshot of a shared conversation id: _index.json must pick the freshest everywhere.
    const conversation = i === 0 ? 'shared-conversation' : `${label}-conv-${i % 3}`;
    // Increasing: the fixture points _index.json at the snapshot added last, the store at the freshest ts.
    clock += d.int(1, 3_600_000);
    const ts = new Date(clock).toISOString();
    addConversation(m, conversation, transcript(bytes, `${label}-${i}-${d.next()}`), { ts });
  });
}

export const FAMILY_FILES = {
  traces: { file: 'traces.jsonl', key: (row: Record<string, unknown>) => String(row.id) },
  ledgers: { file: 'ledgers.jsonl', key: (row: Record<string, unknown>) => String(row.sha) },
  'commit-links': { file: 'commit-links.jsonl', key: (row: Record<string, unknown>) => String(row.id) },
  summaries: { file: 'session-summaries.jsonl', key: (row: Record<string, unknown>) => String(row.id) },
  conversations: { file: 'conversations.jsonl', key: (row: Record<string, unknown>) => `${row.conversation_id}:${row.content_sha256}` },
} as const;
export type FamilyName = keyof typeof FAMILY_FILES;
export const FAMILIES = Object.keys(FAMILY_FILES) as FamilyName[];

export const MANIFEST_KEYS: Record<FamilyName, string> = {
  traces: 'trace_ids',
  ledgers: 'ledger_shas',
  'commit-links': 'commit_link_ids',
  summaries: 'summary_ids',
  conversations: 'conversation_keys',
};

/** The keys of a machine's local rows, per family (parseable lines only). */
export function localKeys(m: Machine): Record<FamilyName, string[]> {
  const out = {} as Record<FamilyName, string[]>;
  for (const family of FAMILIES) out[family] = parseableRows(join(m.dir, FAMILY_FILES[family].file)).map(FAMILY_FILES[family].key).sort();
  return out;
}

/** Every row of every family the service holds for org/project, paging with the client's page size. */
export async function census(service: ServiceHandle, token: string, org: string, project: string): Promise<Record<FamilyName, string[]>> {
  const out = {} as Record<FamilyName, string[]>;
  for (const family of FAMILIES) {
    const keys: string[] = [];
    let after: string | undefined;
    for (;;) {
      const url = new URL(`${service.url}/api/v1/sync/${family}`);
      url.searchParams.set('limit', '500');
      if (after) url.searchParams.set('after', after);
      const response = await fetch(url, {
        headers: { authorization: `Bearer ${token}`, 'x-tracer-org': org, 'x-tracer-project': project },
      });
      assert.is(response.status, 200, `census of ${family}`);
      const page = (await response.json()) as { items: Record<string, unknown>[]; next_cursor: string; has_more: boolean };
      for (const item of page.items) keys.push(FAMILY_FILES[family].key(item));
      if (!page.has_more) break;
      after = page.next_cursor;
    }
    out[family] = keys.sort();
  }
  return out;
}

/** None lost, none twice: the service holds exactly the machine's rows, each once. */
export async function assertServerHoldsExactly(service: ServiceHandle, token: string, m: Machine, context: string): Promise<void> {
  const held = await census(service, token, 'acme', 'web');
  const local = localKeys(m);
  for (const family of FAMILIES) {
    assert.is(new Set(held[family]).size, held[family].length, `${context}: ${family} stored twice on the service`);
    assert.equal(held[family], [...new Set(local[family])].sort(), `${context}: ${family} on the service differs from the local rows`);
  }
}

/** The client's manifest lists exactly its local rows (after a push of everything). */
export function assertManifestAgrees(m: Machine, remote: string, context: string): void {
  const synced = syncState(m)?.remotes?.[remote]?.synced ?? {};
  const local = localKeys(m);
  for (const family of FAMILIES) {
    assert.equal(
      [...(synced[MANIFEST_KEYS[family]] ?? [])].sort(),
      [...new Set(local[family])].sort(),
      `${context}: manifest ${MANIFEST_KEYS[family]} disagrees with ${FAMILY_FILES[family].file}`,
    );
  }
}

/** What a machine holds, order-free: canonical parseable rows per family, cache bytes by sha, the index. */
export function snapshot(m: Machine) {
  const rows: Record<string, string[]> = {};
  for (const family of FAMILIES)
    rows[family] = parseableRows(join(m.dir, FAMILY_FILES[family].file))
      .map((row) => canonicalJson(row))
      .sort();
  const blobs = cacheDigest(m);
  const indexPath = join(m.dir, 'conversations', '_index.json');
  return { rows, blobs, index: existsSync(indexPath) ? (JSON.parse(readFileSync(indexPath, 'utf8')) as Record<string, string>) : {} };
}

/** Both machines hold the same rows, bytes and index, and read every conversation byte-identically. */
export function assertSameStores(a: Machine, b: Machine, context: string): void {
  const left = snapshot(a);
  const right = snapshot(b);
  for (const family of FAMILIES) assert.equal(right.rows[family], left.rows[family], `${context}: ${family} rows differ`);
  assert.equal(right.blobs, left.blobs, `${context}: cached transcripts differ`);
  assert.equal(right.index, left.index, `${context}: _index.json differs`);
  for (const id of Object.keys(left.index))
    assert.ok(readConversation(b, id).equals(readConversation(a, id)), `${context}: transcript ${id} differs`);
}

/**
 * A killed process must leave every local file usable: each JSON state file
 * parses, each JSONL line parses except at most a torn last line, every cache
 * file holds the bytes its name promises. Returns the torn last lines (path and
 * text, to pass back as `knownTorn` once later appends have ended them) and the
 * leftover temp files it saw, for the caller to judge.
 */
export function assertIntact(m: Machine, context: string, knownTorn: readonly string[] = []): { torn: string[]; leftovers: string[] } {
  const torn: string[] = [];
  const leftovers: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        walk(path);
        continue;
      }
      if (/\.corrupt-/.test(name)) assert.unreachable(`${context}: ${path} was set aside as corrupt`);
      if (name.endsWith('.json')) {
        assert.not.throws(() => JSON.parse(readFileSync(path, 'utf8')), `${context}: ${path} does not parse`);
      } else if (name.endsWith('.jsonl') || name.endsWith('.log')) {
        const text = readFileSync(path, 'utf8');
        const lines = text.split('\n');
        lines.forEach((line, index) => {
          if (line === '') return;
          try {
            JSON.parse(line);
          } catch {
            const last = index === lines.length - 1;
            // A torn line stays in place (never deleted) and the next append starts on a fresh line after it.
            const earlierTear = knownTorn.includes(`${path}\n${line}`);
            assert.ok(
              last || earlierTear,
              `${context}: ${path} line ${index + 1} is corrupt and is neither a torn last line nor an earlier tear`,
            );
            if (last) torn.push(`${path}\n${line}`);
          }
        });
      } else if (/^[0-9a-f]{64}$/.test(name)) {
        const actual = createHash('sha256').update(readFileSync(path)).digest('hex');
        assert.is(actual, name, `${context}: cache file ${path} does not hold the bytes its name promises`);
      } else {
        leftovers.push(path);
      }
    }
  };
  walk(m.dir);
  const index = join(m.dir, 'conversations', '_index.json');
  if (existsSync(index)) {
    for (const [id, sha] of Object.entries(JSON.parse(readFileSync(index, 'utf8')) as Record<string, string>)) {
      assert.ok(
        existsSync(join(m.dir, 'conversations', sha.slice(0, 2), sha)),
        `${context}: _index.json names ${sha} for ${id}, which is not in the cache`,
      );
    }
  }
  return { torn, leftovers };
}

function parseableRows(path: string): Record<string, unknown>[] {
  if (!existsSync(path)) return [];
  const rows: Record<string, unknown>[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      rows.push(JSON.parse(line));
    } catch {
      // torn or hand-damaged lines are the integrity check's business
    }
  }
  return rows;
}
