// Workload 20: an agent's transcript through its reader (issue 32's search
// index and `tracer mcp read_conversation`, issue 33's usage), on a 100 MB
// Claude Code transcript of realistic lines: prompts, assistant messages split
// over lines with their usage, tool calls and large tool results. Each
// operation runs in a child process on the built reader, so its peak memory is
// its own; the baseline is reading the same file through node's own line
// reader and JSON.parse of every line, the least a reader of JSONL does.
import { createWriteStream, existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { DATA_DIR, ROOT } from '../environment.js';
import { expectOk, measure, median, mib, round } from '../measure.js';
import type { Result } from '../report.js';

const CHILD = join(ROOT, 'bench', 'workloads', 'transcript-child.mjs');

export async function transcriptWorkload(options: { megabytes: number; runs: number }, log: (line: string) => void): Promise<Result[]> {
  const file = await claudeTranscript(options.megabytes);
  const size = statSync(file).size;
  const dist = join(ROOT, 'dist');
  const child = (...args: string[]) => ({ command: process.execPath, args: [CHILD, dist, ...args] });
  const baseline = {
    command: process.execPath,
    args: [
      '-e',
      `const rl = require('node:readline').createInterface({ input: require('node:fs').createReadStream(${JSON.stringify(file)}), crlfDelay: Infinity });
       let n = 0; rl.on('line', (line) => { if (line) { JSON.parse(line); n += 1; } }); rl.on('close', () => process.stdout.write(String(n)));`,
    ],
  };
  const samples: Record<string, number[]> = { items: [], usage: [], turns: [], window: [], baseline: [], rss: [] };
  const windows: number[] = [];
  for (let n = 0; n < options.runs; n += 1) {
    samples.baseline!.push(expectOk(await measure(baseline), 'baseline').wallMs);
    for (const operation of ['items', 'usage', 'turns'] as const) {
      const run = expectOk(await measure(child(operation, file), { memory: true }), operation);
      samples[operation]!.push(JSON.parse(run.stdout).ms);
      if (run.maxRssKb) samples.rss!.push(run.maxRssKb);
    }
    const window = JSON.parse(expectOk(await measure(child('window', file, '300')), 'window').stdout);
    samples.window!.push(window.scanMs);
    windows.push(window.windowMs);
  }
  const mbPerS = (ms: number) => round(size / 2 ** 20 / (ms / 1000), 1);
  const base = median(samples.baseline!);
  log(
    `  ${round(size / 2 ** 20, 1)} MB: items ${round(median(samples.items!))} ms (${mbPerS(median(samples.items!))} MB/s), usage ${round(median(samples.usage!))} ms, turn scan ${round(median(samples.turns!))} ms, window of turn 300 after the scan ${round(median(windows))} ms; readline + JSON.parse ${round(base)} ms; peak RSS ${mib(Math.max(...samples.rss!))} MiB`,
  );
  const row = (what: string, values: number[], bar: string, pass: boolean): Result => ({
    workload: `20. transcript reader, ${what}`,
    size: `${round(size / 2 ** 20)} MB Claude Code transcript`,
    tracerMs: round(median(values)),
    baselineMs: round(base),
    baselineLabel: 'readline + JSON.parse of every line',
    ratio: round(median(values) / base),
    peakRssMb: mib(Math.max(...samples.rss!)),
    bar,
    pass,
    notes: `${mbPerS(median(values))} MB/s`,
    samples: { tracer: values, baseline: samples.baseline! },
  });
  return [
    row(
      'every item, streamed',
      samples.items!,
      '≥ 50 MB/s, < 200 MB RSS',
      mbPerS(median(samples.items!)) >= 50 && Math.max(...samples.rss!) < 200 * 1024,
    ),
    row('usage', samples.usage!, '≥ 50 MB/s', mbPerS(median(samples.usage!)) >= 50),
    row('where turns start', samples.turns!, '≥ 50 MB/s', mbPerS(median(samples.turns!)) >= 50),
    {
      workload: '20. transcript reader, a window of one turn once its start is known',
      size: '50 items of turn 300',
      tracerMs: round(median(windows)),
      bar: '≤ 50 ms',
      pass: median(windows) <= 50,
      samples: { tracer: windows },
    },
  ];
}

/** A Claude Code transcript of `megabytes`, made once: turns of a prompt, two-line assistant messages with usage, a tool call and a result of 2 to 60 KB. */
async function claudeTranscript(megabytes: number): Promise<string> {
  const file = join(DATA_DIR, `claude-transcript-${megabytes}mb.jsonl`);
  if (existsSync(file)) return file;
  mkdirSync(DATA_DIR, { recursive: true });
  const out = createWriteStream(`${file}.tmp`);
  let bytes = 0;
  let turn = 0;
  const write = (value: unknown) => {
    const line = `${JSON.stringify(value)}\n`;
    bytes += line.length;
    return out.write(line) ? undefined : new Promise<void>((resolve) => out.once('drain', () => resolve()));
  };
  const base = {
    isSidechain: false,
    userType: 'external',
    cwd: '/home/user/project',
    sessionId: 'bench',
    version: '2.0.42',
    gitBranch: 'main',
  };
  while (bytes < megabytes * 2 ** 20) {
    turn += 1;
    const ts = new Date(Date.UTC(2026, 0, 1) + turn * 60_000).toISOString();
    await write({
      ...base,
      type: 'user',
      message: { role: 'user', content: `Turn ${turn}: please change the retry logic in src/retry-${turn % 40}.ts` },
      timestamp: ts,
    });
    for (let step = 0; step < 6; step += 1) {
      const id = `msg_${turn}_${step}`;
      const usage = {
        input_tokens: 4,
        output_tokens: 120 + step,
        cache_creation_input_tokens: 900,
        cache_read_input_tokens: 20_000 + turn,
      };
      const message = (content: unknown) => ({
        ...base,
        type: 'assistant',
        message: { id, model: 'claude-sonnet-4-5-20250929', role: 'assistant', content, usage },
        timestamp: ts,
      });
      await write(message([{ type: 'text', text: `Step ${step} of turn ${turn}: reading and editing. `.repeat(8) }]));
      const file = `/home/user/project/src/retry-${turn % 40}.ts`;
      await write(
        message([
          {
            type: 'tool_use',
            id: `toolu_${turn}_${step}`,
            name: 'Edit',
            input: { file_path: file, old_string: `attempts = ${step}`, new_string: `attempts = ${step + 1}` },
          },
        ]),
      );
      const output = 'line of tool output that the agent read back\n'.repeat(50 + ((turn * 7 + step * 13) % 1300));
      await write({
        ...base,
        type: 'user',
        message: { role: 'user', content: [{ tool_use_id: `toolu_${turn}_${step}`, type: 'tool_result', content: output }] },
        timestamp: ts,
      });
    }
  }
  out.end();
  await finished(out);
  renameSync(`${file}.tmp`, file);
  return file;
}
