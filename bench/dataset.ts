// Deterministic benchmark data, shaped like what the capture hooks and the
// ledger writer produce (src/capture/trace-record.ts, capture/ledger/ledger-record.ts):
// the same seed gives the same bytes, so every run and every machine measures
// the same work. Files are written the way a project folder holds them, so a
// generated folder can be copied into `$TRACER_HOME/projects/<id>/` as is.
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync, type WriteStream } from 'node:fs';
import { dirname, join } from 'node:path';
import { withContentId } from '../src/core/content-id.js';

/** mulberry32: tiny, fast, and good enough to vary shapes; not for secrets. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const hex = (random: () => number, digits: number) => {
  let out = '';
  while (out.length < digits)
    out += Math.floor(random() * 0x100000000)
      .toString(16)
      .padStart(8, '0');
  return out.slice(0, digits);
};
const between = (random: () => number, low: number, high: number) => low + Math.floor(random() * (high - low + 1));
const uuid = (random: () => number) => {
  const h = hex(random, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20)}`;
};

const START_MS = Date.UTC(2024, 4, 1, 9, 0, 0);
const stamp = (index: number) => new Date(START_MS + index * 1_500).toISOString();
const DIRS = ['src', 'src/server', 'src/client', 'lib', 'test', 'packages/core/src', 'packages/ui/src'];
const NAMES = ['index', 'routes', 'store', 'config', 'parser', 'render', 'session', 'queue', 'auth', 'utils'];
const EXTS = ['ts', 'tsx', 'py', 'go', 'rs'];
const TOOLS = ['Edit', 'Edit', 'Edit', 'MultiEdit', 'Write'];

/** One trace row as `tracer hook claude-code PostToolUse` writes it: about 1 KB, with its content id. */
export function traceRecord(index: number, random: () => number, conversationId: string): Record<string, unknown> & { id: string } {
  const files = [];
  for (let f = 0, count = random() < 0.8 ? 1 : 2; f < count; f += 1) {
    const start = between(random, 1, 400);
    const ranges = [];
    let line = start;
    for (let r = 0, count = between(random, 1, 3); r < count; r += 1) {
      const end = line + between(random, 0, 12);
      ranges.push({ start_line: line, end_line: end, content_sha256: hex(random, 64) });
      line = end + between(random, 2, 30);
    }
    const hashes = [];
    for (let h = 0, count = between(random, 8, 30); h < count; h += 1) hashes.push(hex(random, 16));
    const path = `${DIRS[between(random, 0, DIRS.length - 1)]}/${NAMES[between(random, 0, NAMES.length - 1)]}.${EXTS[between(random, 0, EXTS.length - 1)]}`;
    files.push({ path, ranges, line_hashes: hashes });
  }
  return withContentId<Record<string, unknown>>(
    {
      ts: stamp(index),
      agent: 'claude-code',
      event: 'PostToolUse',
      conversation_id: conversationId,
      tool: TOOLS[between(random, 0, TOOLS.length - 1)],
      model: 'claude-sonnet-4-5-20250929',
      files,
      prompt_chars: between(random, 20, 4000),
    },
    'id',
  ) as Record<string, unknown> & { id: string };
}

export interface SyncDatasetSize {
  traces: number;
  ledgers: number;
  commitLinks: number;
  seed?: number;
}

export interface SyncDatasetSummary {
  traces: number;
  ledgers: number;
  commitLinks: number;
  bytes: number;
}

/**
 * traces.jsonl, ledgers.jsonl and commit-links.jsonl in `dir`. Every trace is
 * attributed by exactly one ledger (consecutive traces per commit), so a push
 * without --full sends them all; each ledger has one commit link.
 */
export async function writeSyncDataset(dir: string, size: SyncDatasetSize): Promise<SyncDatasetSummary> {
  mkdirSync(dir, { recursive: true });
  const random = seededRandom(size.seed ?? 7);
  const traces = lineWriter(join(dir, 'traces.jsonl'));
  const ledgers = lineWriter(join(dir, 'ledgers.jsonl'));
  const links = lineWriter(join(dir, 'commit-links.jsonl'));
  const perLedger = Math.ceil(size.traces / Math.max(1, size.ledgers));
  let conversation = uuid(random);
  let pendingIds: string[] = [];
  let ledgerCount = 0;
  let linkCount = 0;
  const closeLedger = async (index: number) => {
    if (pendingIds.length === 0 || ledgerCount >= size.ledgers) return;
    const ledger = ledgerRecord(index, random, pendingIds, conversation);
    await ledgers.write(ledger);
    ledgerCount += 1;
    if (linkCount < size.commitLinks) {
      await links.write(
        withContentId(
          { ts: ledger.ts, commit: ledger.commit, session_ids: [conversation], trace_ids: pendingIds, ledger_sha: ledger.sha },
          'id',
        ),
      );
      linkCount += 1;
    }
    pendingIds = [];
    if (random() < 0.3) conversation = uuid(random);
  };
  for (let index = 0; index < size.traces; index += 1) {
    const trace = traceRecord(index, random, conversation);
    await traces.write(trace);
    pendingIds.push(trace.id);
    if (pendingIds.length >= perLedger) await closeLedger(index);
  }
  await closeLedger(size.traces);
  const bytes = (await traces.close()) + (await ledgers.close()) + (await links.close());
  return { traces: size.traces, ledgers: ledgerCount, commitLinks: linkCount, bytes };
}

/**
 * A ledger line as the commit hook writes it (src/capture/ledger/ledger-record.ts):
 * tracer's members at the top, the attribution as a pure Agent Trace record under
 * `record`, each conversation's traces as `related` trace URLs.
 */
function ledgerRecord(index: number, random: () => number, traceIds: string[], conversationId: string) {
  const commit = hex(random, 40);
  const model = 'anthropic/claude-sonnet-4-5-20250929';
  const files = [];
  for (let f = 0, count = between(random, 1, 4); f < count; f += 1) {
    const start = between(random, 1, 300);
    files.push({
      path: `${DIRS[between(random, 0, DIRS.length - 1)]}/${NAMES[between(random, 0, NAMES.length - 1)]}.ts`,
      conversations: [
        {
          url: `claude-code://session/${conversationId}`,
          contributor: { type: 'ai', model_id: model },
          ranges: [
            {
              start_line: start,
              end_line: start + between(random, 0, 40),
              content_hash: `sha256:${hex(random, 64)}`,
              contributor: { type: 'ai', model_id: model },
            },
          ],
          related: traceIds.slice(0, 3).map((id) => ({ type: 'trace', url: `tracer://trace/${id}` })),
        },
      ],
    });
  }
  const ts = stamp(index);
  const record = {
    version: '0.1.0',
    id: uuid(random),
    timestamp: ts,
    vcs: { type: 'git', revision: commit },
    tool: { name: 'tracer', version: '1' },
    files,
    metadata: { 'dev.tracer': { parents: [hex(random, 40)], lines: { ai: between(random, 1, 200), human: between(random, 0, 50) } } },
  };
  return withContentId<Record<string, unknown>>({ ts, commit, trace_ids: [...traceIds].sort(), record }, 'sha') as Record<
    string,
    unknown
  > & {
    sha: string;
    ts: string;
    commit: string;
  };
}

export interface ConversationDatasetSize {
  count: number;
  minBytes: number;
  maxBytes: number;
  /** The sizes are scaled (within min..max) so that they add up to about this. */
  totalBytes: number;
  seed?: number;
}

/**
 * `conversations/<sha[:2]>/<sha>`, `conversations/_index.json` and
 * `conversations.jsonl` in `dir`, as the capture hooks leave them: transcripts
 * of JSON lines, sizes spread log-uniformly from minBytes to maxBytes, rows
 * marked redacted (captured with redaction: a push sends them as they are).
 */
export async function writeConversationDataset(
  dir: string,
  size: ConversationDatasetSize,
): Promise<{ count: number; bytes: number; sizes: number[] }> {
  const random = seededRandom(size.seed ?? 11);
  const sizes = conversationSizes(size, random);
  const rows = lineWriter(join(dir, 'conversations.jsonl'));
  const index: Record<string, string> = {};
  for (let n = 0; n < sizes.length; n += 1) {
    const id = uuid(random);
    const bytes = transcriptBytes(sizes[n]!, random, id);
    const sha = createHash('sha256').update(bytes).digest('hex');
    const path = join(dir, 'conversations', sha.slice(0, 2), sha);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, bytes);
    index[id] = sha;
    await rows.write({ conversation_id: id, content_sha256: sha, size: bytes.length, ts: stamp(n), redacted: true });
  }
  await rows.close();
  writeFileSync(join(dir, 'conversations', '_index.json'), `${JSON.stringify(index)}\n`);
  return { count: sizes.length, bytes: sizes.reduce((sum, one) => sum + one, 0), sizes };
}

export function conversationSizes(size: ConversationDatasetSize, random: () => number): number[] {
  const ratio = Math.log(size.maxBytes / size.minBytes);
  // Always one of each extreme, so both the inline and the largest blob path are measured.
  const raw = Array.from({ length: size.count }, (_, n) =>
    n === 0 ? size.minBytes : n === 1 ? size.maxBytes : size.minBytes * Math.exp(random() * ratio),
  );
  const sum = raw.reduce((total, one) => total + one, 0);
  const scale = size.totalBytes / sum;
  return raw.map((one, n) => (n < 2 ? one : Math.min(size.maxBytes, Math.max(size.minBytes, one * scale)))).map(Math.round);
}

/** A transcript: one JSON object per line, varied enough that nothing compresses it to nothing. */
function transcriptBytes(length: number, random: () => number, id: string): Buffer {
  const buffer = Buffer.alloc(length);
  let offset = 0;
  for (let turn = 0; offset < length; turn += 1) {
    const line = `${JSON.stringify({ type: turn % 2 ? 'assistant' : 'user', sessionId: id, turn, text: hex(random, between(random, 40, 400)) })}\n`;
    offset += buffer.write(line, offset, 'utf8');
  }
  return buffer;
}

/** A traces.jsonl of about `bytes` bytes (the 1 GB workload). Ledgers are not needed: status and dry runs only read. */
export async function writeLargeTraces(path: string, bytes: number, seed = 13): Promise<{ traces: number; bytes: number }> {
  mkdirSync(dirname(path), { recursive: true });
  const random = seededRandom(seed);
  const out = lineWriter(path);
  let written = 0;
  let count = 0;
  let conversation = uuid(random);
  while (written < bytes) {
    if (count % 50 === 0) conversation = uuid(random);
    written += await out.write(traceRecord(count, random, conversation));
    count += 1;
  }
  await out.close();
  return { traces: count, bytes: written };
}

interface LineWriter {
  /** Bytes written for this record, newline included. */
  write(record: unknown): Promise<number>;
  close(): Promise<number>;
}

/** Buffered JSONL output that respects back-pressure, so a 1 GB file never sits in memory. */
function lineWriter(path: string): LineWriter {
  const stream: WriteStream = createWriteStream(path);
  let total = 0;
  return {
    async write(record) {
      const line = `${JSON.stringify(record)}\n`;
      const size = Buffer.byteLength(line);
      total += size;
      if (!stream.write(line)) await new Promise<void>((resolve) => stream.once('drain', () => resolve()));
      return size;
    },
    close: () => new Promise((resolve, reject) => stream.end((error?: Error | null) => (error ? reject(error) : resolve(total)))),
  };
}

/**
 * A data set built once and kept under .tracer-bench/: `build` runs only when
 * the folder lacks a marker for exactly these parameters.
 */
/** Bumped whenever the generated bytes change for the same parameters (2: records in withContentId's canonical order). */
const DATASET_FORMAT = 4;

export async function cachedDataset<T>(dir: string, parameters: unknown, build: (dir: string) => Promise<T>): Promise<T> {
  const marker = join(dir, '.complete.json');
  const key = JSON.stringify({ format: DATASET_FORMAT, parameters });
  if (existsSync(marker)) {
    const saved = JSON.parse(readFileSync(marker, 'utf8')) as { key: string; result: T };
    if (saved.key === key) return saved.result;
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const result = await build(dir);
  writeFileSync(marker, JSON.stringify({ key, result }));
  return result;
}
