// Workload 17's data set: a repository of one commit per conversation (made
// with git fast-import) and a tracer home whose project holds, for each
// conversation, a trace row of what it wrote, the commit's ledger naming it,
// and its Claude Code transcript snapshot with a usage line per request:
// 10,000 conversations and about 2 GB of transcripts at full size. Built once
// under .tracer-bench/data/ and used in place (only `cache/` changes).
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, openSync, closeSync, writeSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lineHash } from '../../src/capture/trace-record.js';
import { withContentId } from '../../src/core/content-id.js';
import { BIN, cleanEnv } from '../../test/helpers/cli.js';
import { seededRandom } from '../dataset.js';

export interface CostDatasetSize {
  conversations: number;
  /** Transcript bytes in all (each conversation's between a quarter and 1.75 times the mean). */
  transcriptBytes: number;
  files: number;
}

export interface CostDataset {
  repo: string;
  home: string;
  projectDir: string;
  conversations: number;
  transcriptBytes: number;
  requests: number;
  commits: number;
}

const MODELS = ['claude-sonnet-4-5-20250929', 'claude-opus-4-5-20251101', 'claude-haiku-4-5-20251001'];
const START = Date.UTC(2025, 9, 1, 8, 0, 0);
const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
};

export async function writeCostDataset(dir: string, size: CostDatasetSize, log: (line: string) => void): Promise<CostDataset> {
  const random = seededRandom(33);
  const repo = join(dir, 'repo');
  const home = join(dir, 'home');
  mkdirSync(repo, { recursive: true });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env: { ...cleanEnv(), ...GIT_ENV }, encoding: 'utf8' });
  git('init', '-q', '-b', 'main');
  const ids = Array.from(
    { length: size.conversations },
    (_, index) => `bench-${index.toString(16).padStart(8, '0')}-${Math.floor(random() * 1e9).toString(16)}`,
  );

  // The history: commit i appends conversation i's lines to one of the files.
  log(`  building the repository: ${size.conversations} commits`);
  const contents: string[][] = Array.from({ length: size.files }, () => []);
  const appended: Array<{ path: string; start: number; lines: string[] }> = [];
  const importer = spawn('git', ['fast-import', '--quiet'], {
    cwd: repo,
    env: { ...cleanEnv(), ...GIT_ENV },
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  const done = new Promise<void>((resolve, reject) =>
    importer.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`git fast-import exited ${code}`)))),
  );
  const write = (text: string) =>
    new Promise<void>((resolve) => (importer.stdin.write(text) ? resolve() : importer.stdin.once('drain', () => resolve())));
  for (let index = 0; index < size.conversations; index += 1) {
    const file = index % size.files;
    const path = `src/module-${file}.ts`;
    const lines = Array.from(
      { length: 5 + Math.floor(random() * 20) },
      (_, line) => `export const value_${index}_${line} = ${Math.floor(random() * 1e6)};`,
    );
    appended.push({ path, start: contents[file]!.length + 1, lines });
    contents[file]!.push(...lines);
    const body = `${contents[file]!.join('\n')}\n`;
    const message = `conversation ${index}`;
    const time = Math.floor((START + index * 60_000) / 1000);
    await write(
      `commit refs/heads/main\nmark :${index + 1}\ncommitter Bench <bench@example.com> ${time} +0000\ndata ${Buffer.byteLength(message)}\n${message}\n${
        index === 0 ? '' : `from :${index}\n`
      }M 100644 inline ${path}\ndata ${Buffer.byteLength(body)}\n${body}\n`,
    );
  }
  importer.stdin.end();
  await done;
  git('reset', '-q', '--hard', 'main');
  const commits = git('rev-list', '--reverse', 'main').trim().split('\n');

  // The project: `tracer init` makes it, then its files are written in place.
  const init = execFileSync(process.execPath, [BIN, 'init', '--agents', 'none', '--no-git-hooks'], {
    cwd: repo,
    env: { ...cleanEnv(), TRACER_HOME: home, NO_COLOR: '1' },
    encoding: 'utf8',
  });
  const projectDir = /data:\s+(\S+)/.exec(init)?.[1];
  if (!projectDir) throw new Error(`tracer init did not name its data folder:\n${init}`);
  const traces = openSync(join(projectDir, 'traces.jsonl'), 'a');
  const ledgers = openSync(join(projectDir, 'ledgers.jsonl'), 'a');
  const rows = openSync(join(projectDir, 'conversations.jsonl'), 'a');
  const index: Record<string, string> = {};
  let bytes = 0;
  let requests = 0;
  const mean = size.transcriptBytes / size.conversations;
  log(`  writing ${size.conversations} transcripts, about ${Math.round(size.transcriptBytes / 2 ** 20)} MiB`);
  for (let n = 0; n < size.conversations; n += 1) {
    const id = ids[n]!;
    const ts = new Date(START + n * 60_000 - 30_000).toISOString();
    const { path, start, lines } = appended[n]!;
    const trace = withContentId<Record<string, unknown>>(
      {
        ts,
        agent: 'claude-code',
        event: 'PostToolUse',
        conversation_id: id,
        tool: 'Edit',
        model: MODELS[n % MODELS.length],
        files: [
          {
            path,
            ranges: [{ start_line: start, end_line: start + lines.length - 1, content_sha256: sha(lines.join('\n')) }],
            line_hashes: lines.map(lineHash),
          },
        ],
      },
      'id',
    );
    writeSync(traces, `${JSON.stringify(trace)}\n`);
    const commit = commits[n]!;
    const commitTs = new Date(START + n * 60_000).toISOString();
    const ledger = withContentId<Record<string, unknown>>(
      {
        version: '0.1',
        timestamp: commitTs,
        ts: commitTs,
        commit,
        vcs: { type: 'git', revision: commit },
        tool: { name: 'tracer' },
        trace_ids: [trace.id],
        files: [
          {
            path,
            conversations: [
              {
                url: `claude-code://session/${encodeURIComponent(id)}`,
                contributor: { type: 'ai', model_id: `anthropic/${MODELS[n % MODELS.length]}` },
                ranges: [{ start_line: start, end_line: start + lines.length - 1 }],
              },
            ],
          },
        ],
      },
      'sha',
    );
    writeSync(ledgers, `${JSON.stringify(ledger)}\n`);
    const transcript = claudeTranscript(
      id,
      Math.round(mean * (0.25 + random() * 1.5)),
      MODELS[n % MODELS.length]!,
      START + n * 60_000 - 3_600_000,
      random,
    );
    requests += transcript.requests;
    const hash = sha(transcript.bytes);
    mkdirSync(join(projectDir, 'conversations', hash.slice(0, 2)), { recursive: true });
    writeFileSync(join(projectDir, 'conversations', hash.slice(0, 2), hash), transcript.bytes);
    writeSync(rows, `${JSON.stringify({ conversation_id: id, content_sha256: hash, size: transcript.bytes.length, ts })}\n`);
    index[id] = hash;
    bytes += transcript.bytes.length;
  }
  for (const fd of [traces, ledgers, rows]) closeSync(fd);
  writeFileSync(join(projectDir, 'conversations', '_index.json'), JSON.stringify(index));
  return { repo, home, projectDir, conversations: size.conversations, transcriptBytes: bytes, requests, commits: commits.length };
}

function sha(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Turns of a prompt, assistant messages with their usage (one per request, some over two lines) and tool results, to about `target` bytes. */
export function claudeTranscript(
  sessionId: string,
  target: number,
  model: string,
  startMs: number,
  random: () => number,
): { bytes: Buffer; requests: number } {
  const parts: string[] = [];
  let total = 0;
  let requests = 0;
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
      message: { role: 'user', content: `Please change step ${turn}: ${'make it validate its input, '.repeat(4)}` },
    });
    for (let step = 0; step < 3 && total < target; step += 1) {
      clock += 4_000;
      requests += 1;
      const id = `msg_${sessionId}_${turn}_${step}`;
      const usage = {
        input_tokens: 3 + Math.floor(random() * 20),
        cache_creation_input_tokens: Math.floor(random() * 4000),
        cache_read_input_tokens: 10_000 + Math.floor(random() * 60_000),
        output_tokens: 50 + Math.floor(random() * 900),
      };
      const base = { type: 'assistant', sessionId, timestamp: new Date(clock).toISOString(), requestId: `req_${id}` };
      // Claude Code writes a message over a line per content block, each with the usage as it stood.
      push({
        ...base,
        uuid: `${id}-a`,
        message: {
          id,
          role: 'assistant',
          model,
          content: [{ type: 'text', text: `Step ${step}: ${'reading the handler and its tests, '.repeat(6)}` }],
          usage: { ...usage, output_tokens: 8 },
        },
      });
      push({
        ...base,
        uuid: `${id}-b`,
        message: {
          id,
          role: 'assistant',
          model,
          content: [
            {
              type: 'tool_use',
              id: `tool_${id}`,
              name: 'Edit',
              input: { file_path: '/repo/src/handler.ts', old_string: 'const a = 1;\n'.repeat(8), new_string: 'const a = 2;\n'.repeat(8) },
            },
          ],
          usage,
        },
      });
      push({
        type: 'user',
        sessionId,
        uuid: `${id}-r`,
        timestamp: new Date(clock + 500).toISOString(),
        message: {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: `tool_${id}`,
              content: `The file has been updated. ${'line of the file as it stands now\n'.repeat(40 + Math.floor(random() * 200))}`,
            },
          ],
        },
      });
    }
  }
  return { bytes: Buffer.from(`${parts.join('\n')}\n`), requests };
}
