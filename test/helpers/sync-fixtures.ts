import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson, withContentId } from '../../src/core/content-id.js';
import { git, runMain, runTracer, tempDir, tempRepo, type RunOptions, type RunResult } from './cli.js';

/**
 * A "machine" for sync tests: its own TRACER_HOME and its own clone, initialized
 * and bound to a remote, with helpers that seed records the way the capture
 * hooks will write them (JSONL rows with correct content ids, transcripts in the
 * content-addressed cache).
 */
export interface Machine {
  home: string;
  repo: string;
  dir: string;
  /** The built binary in its own process, as a user, a hook or a scheduler runs it. */
  run(args: readonly string[], options?: Partial<RunOptions>): Promise<RunResult>;
  /** The same command line in the test's process (runMain): for what the command does, not how it starts. */
  main(args: readonly string[], options?: Partial<RunOptions>): Promise<RunResult>;
}

export async function machine(
  options: { cloneOf?: string; remoteUrl?: string; token?: string; env?: Record<string, string> } = {},
): Promise<Machine> {
  const home = join(tempDir('tracer-home-'), 'home');
  let repo: string;
  if (options.cloneOf) {
    repo = join(tempDir('tracer-clone-'), 'repo');
    git(options.cloneOf, 'clone', '-q', options.cloneOf, repo);
  } else {
    repo = tempRepo();
  }
  const run = (args: readonly string[], extra: Partial<RunOptions> = {}) =>
    runTracer(args, { cwd: repo, home, ...extra, env: { ...options.env, ...extra.env } });
  const main = (args: readonly string[], extra: Partial<RunOptions> = {}) =>
    runMain(args, { cwd: repo, home, ...extra, env: { ...options.env, ...extra.env } });
  // Setting the machine up is not what the tests look at: in this process.
  const init = await main(['init']);
  if (init.code !== 0) throw new Error(`init failed: ${init.stderr}`);
  const dir = /data:\s+(\S+)/.exec(init.stdout)![1]!;
  if (options.remoteUrl) {
    const args = ['remote', 'add', 'origin', options.remoteUrl];
    if (options.token) args.push('--token', options.token);
    const added = await main(args);
    if (added.code !== 0) throw new Error(`remote add failed: ${added.stderr}`);
  }
  return { home, repo, dir, run, main };
}

let counter = 0;
const stamp = (offsetMinutes = 0) => new Date(Date.UTC(2024, 4, 1, 12, 0, 0) + offsetMinutes * 60_000).toISOString();

export function addTrace(m: Machine, fields: Record<string, unknown> = {}): Record<string, unknown> & { id: string } {
  counter += 1;
  const record = withContentId({ ts: stamp(counter), tool: 'edit', n: counter, ...fields }, 'id') as unknown as Record<string, unknown> & {
    id: string;
  };
  appendRows(join(m.dir, 'traces.jsonl'), [record]);
  return record;
}

export function addLedger(m: Machine, traceIds: string[], fields: Record<string, unknown> = {}): Record<string, unknown> & { sha: string } {
  counter += 1;
  const record = withContentId(
    { ts: stamp(counter), commit: createHash('sha1').update(String(counter)).digest('hex'), trace_ids: traceIds, ...fields },
    'sha',
  ) as unknown as Record<string, unknown> & { sha: string };
  appendRows(join(m.dir, 'ledgers.jsonl'), [record]);
  return record;
}

export function addCommitLink(m: Machine, fields: Record<string, unknown> = {}): Record<string, unknown> {
  counter += 1;
  const record = withContentId({ ts: stamp(counter), commit: createHash('sha1').update(`link${counter}`).digest('hex'), ...fields }, 'id');
  appendRows(join(m.dir, 'commit-links.jsonl'), [record]);
  return record;
}

export function addSummary(m: Machine, fields: Record<string, unknown> = {}): Record<string, unknown> {
  counter += 1;
  const record = withContentId(
    { ts: stamp(counter), conversation_url: `https://agent.example/c/${counter}`, summary: `summary ${counter}`, ...fields },
    'id',
  );
  appendRows(join(m.dir, 'session-summaries.jsonl'), [record]);
  return record;
}

/** A transcript snapshot: bytes in the cache, a row in conversations.jsonl, the index pointing at it. */
export function addConversation(
  m: Machine,
  conversationId: string,
  bytes: Buffer,
  options: { ts?: string; row?: boolean } = {},
): { sha: string; row: Record<string, unknown> } {
  counter += 1;
  const sha = createHash('sha256').update(bytes).digest('hex');
  const cache = join(m.dir, 'conversations', sha.slice(0, 2));
  mkdirSync(cache, { recursive: true });
  writeFileSync(join(cache, sha), bytes);
  const row = { conversation_id: conversationId, content_sha256: sha, size: bytes.length, ts: options.ts ?? stamp(counter) };
  if (options.row !== false) appendRows(join(m.dir, 'conversations.jsonl'), [row]);
  const indexPath = join(m.dir, 'conversations', '_index.json');
  const index = existsSync(indexPath) ? JSON.parse(readFileSync(indexPath, 'utf8')) : {};
  index[conversationId] = sha;
  writeFileSync(indexPath, JSON.stringify(index));
  return { sha, row };
}

/** Deterministic, incompressible-enough bytes of a given size. */
export function transcript(size: number, seed: string): Buffer {
  const out = Buffer.alloc(size);
  let block = createHash('sha256').update(seed).digest();
  for (let offset = 0; offset < size; offset += block.length) {
    block.copy(out, offset);
    block = createHash('sha256').update(block).digest();
  }
  return out;
}

export function appendRows(path: string, rows: readonly unknown[]): void {
  mkdirSync(join(path, '..'), { recursive: true });
  appendFileSync(path, rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
}

export function readRows(path: string): Record<string, unknown>[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
}

/** The transcript cache as file name → SHA-256 of its bytes (a name that lies shows up as a mismatch). */
export function cacheDigest(m: Machine): Record<string, string> {
  const blobs: Record<string, string> = {};
  const cacheDir = join(m.dir, 'conversations');
  if (!existsSync(cacheDir)) return blobs;
  for (const prefix of readdirSync(cacheDir)) {
    if (prefix.length !== 2) continue;
    for (const name of readdirSync(join(cacheDir, prefix)))
      blobs[name] = createHash('sha256')
        .update(readFileSync(join(cacheDir, prefix, name)))
        .digest('hex');
  }
  return blobs;
}

/** Everything a machine holds, order-free: canonical rows per family file, cache bytes by sha, the index. */
export function storeSnapshot(m: Machine) {
  const rows = (file: string) =>
    readRows(join(m.dir, file))
      .map((row) => canonicalJson(row))
      .sort();
  const blobs = cacheDigest(m);
  const indexPath = join(m.dir, 'conversations', '_index.json');
  return {
    traces: rows('traces.jsonl'),
    ledgers: rows('ledgers.jsonl'),
    commitLinks: rows('commit-links.jsonl'),
    summaries: rows('session-summaries.jsonl'),
    conversations: rows('conversations.jsonl'),
    blobs,
    index: existsSync(indexPath) ? JSON.parse(readFileSync(indexPath, 'utf8')) : {},
  };
}

export function syncState(m: Machine): any {
  const path = join(m.dir, 'sync-state.json');
  return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : undefined;
}

/** The conversation's bytes as a reader resolves them: index → cache file. */
export function readConversation(m: Machine, conversationId: string): Buffer {
  const index = JSON.parse(readFileSync(join(m.dir, 'conversations', '_index.json'), 'utf8'));
  const sha = index[conversationId];
  return readFileSync(join(m.dir, 'conversations', sha.slice(0, 2), sha));
}
