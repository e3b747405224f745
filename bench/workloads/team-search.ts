// Workload 16: the team view's search (issue 32) on each backend. The data set
// is workload 10's shape at 200,000 traces in 10,000 sessions (a ledger, commit
// link and summary each), with a Claude Code transcript for every session
// (about 24 KB of prompts, answers and edits; words drawn from a vocabulary
// with a Zipf-like spread, so a common word is in nearly every conversation;
// a rare word is planted in one of every 50 transcripts, each name in ~22). One machine pushes it all with `push --full`; once
// the view has folded the rows in and indexed every document (the search
// route's `pending` is 0), each query is asked through the API as a signed-in
// browser would, a few times: a common word, a rare word, a phrase, a prefix,
// and AND / OR / NOT together. The bar is per query.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cachedDataset, seededRandom } from '../dataset.js';
import { clientHome, DATA_DIR, ORG, runFolder, seedProject, startBenchService } from '../environment.js';
import { expectOk, median, round } from '../measure.js';
import type { Result } from '../report.js';
import { signIn } from './team-view.js';
import { writeViewerDataset, type ViewerDatasetSize } from './viewer-dataset.js';

const WORDS = (
  'the retry logic handler request response client server cache token timeout backoff session route page query index ' +
  'commit branch merge test build deploy config option value error message stream buffer parser schema migration table ' +
  'column row cursor batch upload download blob hash digest secret redact forget audit role project organization team ' +
  'person agent model prompt answer edit file path line range ledger trace summary transcript search snippet rank ' +
  'jitter exponential linear circuit breaker queue worker thread process signal memory limit budget latency throughput'
).split(' ');
/** Words planted in one transcript of every 50 (each name in about 1 in 450): what a rare word is. */
const RARE = 'kangaroo platypus wombat echidna quokka numbat dingo bilby cassowary'.split(' ');

export const SEARCH_QUERIES = [
  { name: 'common word', q: 'the' },
  { name: 'rare word', q: 'cassowary' },
  { name: 'phrase', q: '"exponential backoff"' },
  { name: 'prefix', q: 'migra*' },
  { name: 'AND OR NOT', q: '(retry OR timeout) AND handl* NOT (cassowary OR wombat)' },
];

export async function teamSearchWorkload(
  options: { size: ViewerDatasetSize; transcriptBytes: number; runs: number; backends: Array<'sqlite' | 'postgres'> },
  log: (line: string) => void,
): Promise<Result[]> {
  const datasetDir = join(DATA_DIR, `team-search-${options.size.traces}-${options.size.sessions}-${options.transcriptBytes}`);
  const dataset = await cachedDataset(datasetDir, { ...options.size, each: options.transcriptBytes, rare: RARE.length }, async (dir) => {
    const base = await writeViewerDataset(dir, options.size);
    return { ...base, ...withTranscripts(dir, options.transcriptBytes) };
  });
  const size = `${dataset.traces.toLocaleString('en-US')} traces, ${dataset.sessions.toLocaleString('en-US')} conversations with a transcript (${round(dataset.transcriptTotal / 2 ** 20)} MiB)`;
  const results: Result[] = [];
  for (const backend of options.backends) {
    const folder = runFolder(`team-search-${backend}`);
    const service = await startBenchService({ backend, dataDir: join(folder, 'service') });
    const token = await service.project('search');
    const lead = await service.handle.createToken({ org: ORG, name: 'bench-lead' });
    const client = await clientHome(join(folder, 'client'), { url: service.remoteUrl('search'), token });
    seedProject(client.projectDir, datasetDir);
    const pushStarted = performance.now();
    expectOk(await client.run(['push', '--full', '--quiet']), 'tracer push --full');
    const pushEnded = performance.now();
    const base = `${service.handle.url}/ui`;
    const cookie = await signIn(base, lead);
    await indexed(base, cookie);
    const indexMs = performance.now() - pushEnded;
    const perQuery: Record<string, number[]> = {};
    const hits: Record<string, number> = {};
    for (let run = 0; run < options.runs; run += 1) {
      for (const query of SEARCH_QUERIES) {
        const started = performance.now();
        const response = await fetch(`${base}/api/p/${ORG}/search/search?${new URLSearchParams({ q: query.q, limit: '20' })}`, {
          headers: { cookie },
        });
        const body = (await response.json()) as { hits: unknown[] };
        (perQuery[query.name] ??= []).push(performance.now() - started);
        if (!response.ok) throw new Error(`the search route answered ${response.status}: ${JSON.stringify(body)}`);
        hits[query.name] = body.hits.length;
      }
    }
    await service.handle.stop();
    const medians = SEARCH_QUERIES.map((query) => ({ name: query.name, ms: median(perQuery[query.name]!) }));
    const worst = Math.max(...medians.map((entry) => entry.ms));
    log(
      `  ${backend}: push ${round((pushEnded - pushStarted) / 1000, 1)} s, indexed ${round(indexMs / 1000, 1)} s after it; ${medians
        .map((entry) => `${entry.name} ${round(entry.ms)} ms (${hits[entry.name]} hits)`)
        .join(', ')}`,
    );
    results.push({
      workload: `16. team view (${backend}): search, slowest of ${SEARCH_QUERIES.length} queries`,
      size,
      tracerMs: round(worst),
      bar: '≤ 300 ms per query',
      pass: worst <= 300,
      notes: `${medians.map((entry) => `${entry.name} ${round(entry.ms)} ms`).join(', ')}; push --full ${round((pushEnded - pushStarted) / 1000, 1)} s; indexed ${round(indexMs / 1000, 1)} s after the push`,
      samples: { ...perQuery, pushMs: [pushEnded - pushStarted], indexMs: [indexMs] },
    });
  }
  return results;
}

/** A Claude Code transcript for every session of the viewer data set that has none, indexed as the hooks index them. */
function withTranscripts(dir: string, each: number): { transcriptTotal: number } {
  const random = seededRandom(16);
  const ids = new Set<string>();
  for (const line of readFileSync(join(dir, 'session-summaries.jsonl'), 'utf8').split('\n'))
    if (line) ids.add((JSON.parse(line) as { conversation_id: string }).conversation_id);
  const index = JSON.parse(readFileSync(join(dir, 'conversations', '_index.json'), 'utf8')) as Record<string, string>;
  const rows: string[] = [readFileSync(join(dir, 'conversations.jsonl'), 'utf8').trimEnd()];
  let total = 0;
  let n = 0;
  for (const id of ids) {
    if (index[id]) continue;
    const rare = n % 50 === 0 ? RARE[(n / 50) % RARE.length] : undefined;
    const bytes = transcript(id, each, Date.UTC(2025, 9, 1) + n * 3_600_000, random, rare);
    n += 1;
    total += bytes.length;
    const sha = createHash('sha256').update(bytes).digest('hex');
    mkdirSync(join(dir, 'conversations', sha.slice(0, 2)), { recursive: true });
    writeFileSync(join(dir, 'conversations', sha.slice(0, 2), sha), bytes);
    index[id] = sha;
    rows.push(JSON.stringify({ conversation_id: id, content_sha256: sha, size: bytes.length, ts: '2025-10-01T00:00:00.000Z' }));
  }
  writeFileSync(join(dir, 'conversations', '_index.json'), JSON.stringify(index));
  writeFileSync(join(dir, 'conversations.jsonl'), `${rows.join('\n')}\n`);
  return { transcriptTotal: total };
}

/** Words with a Zipf-like spread: the first of the vocabulary in nearly every transcript, the last in a few. */
function sentence(random: () => number, words: number): string {
  const out: string[] = [];
  for (let index = 0; index < words; index += 1) out.push(WORDS[Math.floor(WORDS.length * random() ** 2.2)]!);
  return out.join(' ');
}

function transcript(sessionId: string, target: number, startMs: number, random: () => number, rare?: string): Buffer {
  const parts: string[] = [];
  let total = 0;
  let clock = startMs;
  const push = (value: unknown) => {
    const line = JSON.stringify(value);
    parts.push(line);
    total += line.length + 1;
  };
  for (let turn = 0; total < target; turn += 1) {
    clock += 20_000;
    push({
      type: 'user',
      sessionId,
      uuid: `${sessionId}-u${turn}`,
      timestamp: new Date(clock).toISOString(),
      message: { role: 'user', content: `${sentence(random, 30)}${turn === 1 && rare ? ` and the ${rare}` : ''}?` },
    });
    clock += 4_000;
    const id = `msg_${sessionId}_${turn}`;
    push({
      type: 'assistant',
      sessionId,
      uuid: `${id}-a`,
      timestamp: new Date(clock).toISOString(),
      message: {
        id,
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [
          { type: 'text', text: `${sentence(random, 80)}.` },
          {
            type: 'tool_use',
            id: `tool_${id}`,
            name: 'Edit',
            input: { file_path: `/repo/src/${WORDS[Math.floor(random() * WORDS.length)]}.ts`, old_string: 'a', new_string: 'b' },
          },
        ],
      },
    });
  }
  return Buffer.from(`${parts.join('\n')}\n`);
}

/** The search route, asked every 500 ms until every pushed document is indexed. */
async function indexed(base: string, cookie: string): Promise<void> {
  for (;;) {
    const response = await fetch(`${base}/api/p/${ORG}/search/search?q=the`, { headers: { cookie } });
    if (!response.ok) throw new Error(`the search route answered ${response.status}`);
    const found = (await response.json()) as { pending: number; hits: unknown[] };
    if (found.pending === 0 && found.hits.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
