// Workload 12 (issue 29): what redaction costs, and how well it finds.
//   a. Capture: Claude Code's Stop on an 8 MB transcript, recorded before the
//      hook returns (TRACER_HOOK_SYNC=1: node start, the snapshot copied and
//      hashed, its row, the summary), with the redact plugin against the same
//      project with `!redact`; and the snapshot alone, in this process.
//      Bar: ≤ 1.5× capture without redaction.
//   b. Push of 50k traces, ledgers and commit links plus summaries captured
//      before redaction (a tenth holding secrets, redacted on the way out) to a
//      service with its gate on, against the raw client sending the same rows
//      as they end up on the service. Bar: ≤ 1.0× the raw client.
//   c. The corpus (test/redact/corpus.ts): recall and false positives per rule.
import { createReadStream, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withContentId } from '../../src/core/content-id.js';
import { Values, transcriptLine, positives } from '../../test/redact/corpus.js';
import { measureCorpus } from '../../test/redact/corpus-figures.js';
import { cachedDataset, writeSyncDataset } from '../dataset.js';
import { clientHome, DATA_DIR, runBaseline, runFolder, seedProject, startBenchService } from '../environment.js';
import { expectOk, measure, median, round } from '../measure.js';
import type { Result } from '../report.js';
import { ratioResult } from './sync.js';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const PROSE =
  `the of and to in is that for it with as on be by this are from at or an have not which but all can they one has more when there will would about into if what so its other than out some could time these two may first then do any like my now over such make well should because each just those how too little good very work get here between both life being under never day same another know while last might us great old year off come since against go came right used take three`.split(
    ' ',
  );
const CODE = [
  "import { readFile } from 'node:fs/promises';",
  'export async function load(path: string): Promise<Config> {',
  '  const text = await readFile(path, "utf8");',
  '  if (!options.token) throw new Error("missing token");',
  '  const apiKey = process.env.API_KEY;',
  '  return { ...defaults, ...JSON.parse(text) };',
  '}',
  'describe("auth", () => { it("refreshes the token", async () => { expect(await refresh()).toBe(true); }); });',
  '    password: ${DB_PASSWORD}',
  'const cacheKey = `${user.id}:${hash(query)}`;',
];

/** A Claude Code transcript of about `bytes`, as a long session leaves it: prose, edits, command output, ten secrets pasted or echoed. */
export function benchTranscript(bytes: number, seed = 12): string {
  const v = new Values(seed);
  const sentence = (words: number) => Array.from({ length: words }, () => PROSE[v.int(PROSE.length)]).join(' ');
  const secrets = positives({ perRule: 1, seed }).filter((sample) => !sample.text.startsWith('{'));
  const lines: string[] = [];
  let size = 0;
  for (let turn = 0; size < bytes; turn += 1) {
    let line: string;
    const kind = turn % 5;
    if (turn % Math.ceil(bytes / 1_000_000) === 0 && secrets.length > 0 && turn > 0) line = transcriptLine(v, secrets.pop()!.text);
    else if (kind === 0)
      line = JSON.stringify({
        type: 'user',
        sessionId: 'bench',
        uuid: v.uuid(),
        message: { role: 'user', content: sentence(20 + v.int(60)) },
      });
    else if (kind === 1)
      line = JSON.stringify({
        type: 'assistant',
        sessionId: 'bench',
        uuid: v.uuid(),
        message: {
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [{ type: 'text', text: sentence(40 + v.int(200)) }],
          usage: { input_tokens: v.int(5000), output_tokens: v.int(900) },
        },
      });
    else {
      const body = Array.from({ length: 30 + v.int(150) }, (_, index) =>
        index % 9 === 0
          ? CODE[v.int(CODE.length)]
          : index % 13 === 0
            ? `commit ${v.sha(1)}`
            : index % 17 === 0
              ? `"integrity": "sha512-${v.bytes(64).toString('base64')}"`
              : index % 19 === 0
                ? v.uuid()
                : sentence(8),
      ).join('\n');
      line = transcriptLine(v, body);
    }
    lines.push(line);
    size += Buffer.byteLength(line) + 1;
  }
  return `${lines.join('\n')}\n`;
}

export async function redactionWorkload(
  options: { transcriptBytes: number; traces: number; runs: number; parts: ReadonlyArray<'12a' | '12b' | '12c'> },
  log: (line: string) => void,
): Promise<Result[]> {
  return [
    ...(options.parts.includes('12a') ? await captureRows(options, log) : []),
    ...(options.parts.includes('12b') ? await pushRows(options, log) : []),
    ...(options.parts.includes('12c') ? [corpusRow(await corpusFigures(log))] : []),
  ];
}

async function captureRows(options: { transcriptBytes: number; runs: number }, log: (line: string) => void): Promise<Result[]> {
  const dir = runFolder('redaction-capture');
  const full = benchTranscript(options.transcriptBytes);
  // The last turn: what a Stop at the end of a long session has to add to the snapshot before it.
  const cut = full.lastIndexOf('\n', full.length - 100 * 1024 - 1) + 1;
  const transcript = join(dir, 'transcript.jsonl');
  writeFileSync(transcript, full);
  const on = await clientHome(join(dir, 'on'));
  const off = await clientHome(join(dir, 'off'));
  expectOk(await off.run(['config', 'set', 'plugins', '!redact']), 'switch redact off');
  const stop = (client: typeof on, session: string, path: string) =>
    client.spec(['hook', 'claude-code', 'Stop'], {
      input: JSON.stringify({
        session_id: session,
        transcript_path: path,
        cwd: client.repo,
        hook_event_name: 'Stop',
        stop_hook_active: false,
      }),
      env: { ...client.spec([]).env, TRACER_HOOK_SYNC: '1' },
    });
  // Wall time, and CPU time (user + system, from GNU time): on a machine other work loads, the CPU a run takes moves far less.
  const timed = async (client: typeof on, session: string, path: string) => {
    const run = expectOk(await measure(stop(client, session, path), { memory: true }), 'Stop');
    if (run.stdout !== '') throw new Error(`the hook printed ${run.stdout}`);
    return { wall: run.wallMs, cpu: run.cpuMs ?? NaN };
  };
  const series = () => ({ on: [] as number[], off: [] as number[], onCpu: [] as number[], offCpu: [] as number[] });
  const samples = { cold: series(), end: series() };
  const keep = (into: ReturnType<typeof series>, which: 'on' | 'off', time: { wall: number; cpu: number }) => {
    into[which].push(time.wall);
    into[which === 'on' ? 'onCpu' : 'offCpu'].push(time.cpu);
  };
  for (const client of [on, off]) await timed(client, 'warm-up', transcript);
  for (let n = 1; n <= options.runs; n += 1) {
    for (const which of n % 2 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
      const client = which === 'on' ? on : off;
      keep(samples.cold, which, await timed(client, `cold-${n}`, transcript));
      // A session's last Stop: the one before it snapshotted all but the last turn.
      const growing = join(dir, `session-${which}-${n}.jsonl`);
      writeFileSync(growing, full.slice(0, cut));
      await timed(client, `session-${n}`, growing);
      writeFileSync(growing, full);
      keep(samples.end, which, await timed(client, `session-${n}`, growing));
    }
  }
  const inProcess = await snapshotInProcess(transcript, dir, options.runs);
  const mb = round(options.transcriptBytes / 2 ** 20, 1);
  log(
    `  ${mb} MiB transcript: last Stop of a session ${round(median(samples.end.on))} ms with redaction, ${round(median(samples.end.off))} ms without (CPU ${round(median(samples.end.onCpu))} / ${round(median(samples.end.offCpu))} ms); first Stop ${round(median(samples.cold.on))} / ${round(median(samples.cold.off))} ms (CPU ${round(median(samples.cold.onCpu))} / ${round(median(samples.cold.offCpu))} ms); the snapshot alone ${round(median(inProcess.on))} / ${round(median(inProcess.off))} ms`,
  );
  const row = (
    workload: string,
    size: string,
    tracer: number[],
    baseline: number[],
    label: string,
    bar: string,
    withBar: boolean,
    cpu?: { tracer: number[]; baseline: number[] },
  ): Result => ({
    workload,
    size,
    tracerMs: round(median(tracer)),
    baselineMs: round(median(baseline)),
    baselineLabel: label,
    ratio: round(median(tracer) / median(baseline)),
    bar,
    pass: !withBar || median(tracer) <= 1.5 * median(baseline),
    notes:
      cpu && `CPU ${round(median(cpu.tracer))} / ${round(median(cpu.baseline))} ms: ${round(median(cpu.tracer) / median(cpu.baseline))}×`,
    samples: { tracer, baseline, ...(cpu ? { tracerCpu: cpu.tracer, baselineCpu: cpu.baseline } : {}) },
  });
  return [
    row(
      '12a. capture, the last Stop of a session',
      `Claude Code Stop, ${mb} MiB transcript, the last 100 KiB new, ${options.runs} runs`,
      samples.end.on,
      samples.end.off,
      'the same hook, !redact',
      '≤ 1.5× capture without redaction',
      true,
      { tracer: samples.end.onCpu, baseline: samples.end.offCpu },
    ),
    row(
      '12a. capture, a first Stop',
      `Claude Code Stop, ${mb} MiB transcript all new, ${options.runs} runs`,
      samples.cold.on,
      samples.cold.off,
      'the same hook, !redact',
      'for reference (see BENCHMARKS.md)',
      false,
      { tracer: samples.cold.onCpu, baseline: samples.cold.offCpu },
    ),
    row(
      '12a. the first snapshot alone, in process',
      `${mb} MiB, ${options.runs} runs`,
      inProcess.on,
      inProcess.off,
      'copy and hash',
      'for reference',
      false,
    ),
  ];
}

/** snapshotTranscript with and without the built-in layers, alternating, in this process (no node start, modules warm). */
async function snapshotInProcess(transcript: string, dir: string, runs: number): Promise<{ on: number[]; off: number[] }> {
  const { snapshotTranscript } = await import('../../src/capture/hook/transcript.js');
  const { builtinRedactor } = await import('../../test/redact/corpus-figures.js');
  const { redactStream } = await import('../../src/redact/stream.js');
  const { redactor } = await builtinRedactor();
  const samples = { on: [] as number[], off: [] as number[] };
  for (let n = 0; n <= runs; n += 1) {
    for (const which of n % 2 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
      const project = join(dir, `snapshot-${which}-${n}`);
      mkdirSync(project, { recursive: true });
      const started = process.hrtime.bigint();
      await snapshotTranscript(
        project,
        `c-${n}`,
        transcript,
        new Date().toISOString(),
        which === 'on' ? { bytes: (path) => redactStream(createReadStream(path), redactor), mark: {} } : undefined,
      );
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (n > 0) samples[which].push(ms); // the first of each warms up
      rmSync(project, { recursive: true, force: true });
    }
  }
  await redactor.close();
  return samples;
}

/**
 * Three pushes alternate, each to a fresh service with its gate on: tracer on the
 * data as an older tracer left it (redacting a tenth of the summaries on the way
 * out), tracer with `!redact` on the data as it ends up on the service (the same
 * push without redaction), and the raw client on that data.
 */
async function pushRows(options: { traces: number; runs: number }, log: (line: string) => void): Promise<Result[]> {
  const size = { traces: options.traces, ledgers: options.traces / 50, commitLinks: options.traces / 50 };
  const summaries = options.traces / 25;
  const data = join(DATA_DIR, `redaction-push-${options.traces}`);
  await cachedDataset(join(data, 'tracer'), { ...size, summaries, v: 1 }, async (dir) => {
    const written = await writeSyncDataset(dir, size);
    writeSummaries(dir, summaries, false);
    return written;
  });
  // The raw client sends the same rows as they end up on the service: the summaries as tracer sends them, redacted.
  await cachedDataset(join(data, 'raw'), { ...size, summaries, v: 1 }, async (dir) => {
    const written = await writeSyncDataset(dir, size);
    writeSummaries(dir, summaries, true);
    return written;
  });
  const samples = { tracer: [] as number[], plain: [] as number[], raw: [] as number[], rawAfterStart: [] as number[] };
  const orders = [
    ['tracer', 'plain', 'raw'],
    ['raw', 'tracer', 'plain'],
    ['plain', 'raw', 'tracer'],
  ] as const;
  for (let run = 0; run < options.runs; run += 1) {
    for (const who of orders[run % orders.length]!) {
      const dir = runFolder(`redaction-push-${who}`);
      const service = await startBenchService({ backend: 'sqlite', dataDir: join(dir, 'service') });
      try {
        const token = await service.project('redaction');
        if (who === 'raw') {
          const raw = await runBaseline('push-raw.ts', [service.remoteUrl('redaction'), token, join(data, 'raw')]);
          samples.raw.push(raw.wallMs);
          samples.rawAfterStart.push(raw.ms);
          continue;
        }
        const client = await clientHome(join(dir, 'client'), { url: service.remoteUrl('redaction'), token });
        seedProject(client.projectDir, join(data, who === 'tracer' ? 'tracer' : 'raw'));
        if (who === 'plain') expectOk(await client.run(['config', 'set', 'plugins', '!redact']), 'switch redact off');
        const push = expectOk(await client.run(['push', '--json']), 'tracer push');
        const report = JSON.parse(push.stdout).push;
        const sent = report.families.find((family: { family: string }) => family.family === 'summaries').sent;
        if (sent !== summaries) throw new Error(`tracer pushed ${sent} of ${summaries} summaries`);
        samples[who].push(push.wallMs);
      } finally {
        await service.handle.stop();
      }
    }
    log(
      `  push run ${run + 1}: tracer ${round(samples.tracer.at(-1)!)} ms, tracer with !redact ${round(samples.plain.at(-1)!)} ms, raw ${round(samples.raw.at(-1)!)} ms (${round(samples.rawAfterStart.at(-1)!)} after its start)`,
    );
  }
  const what = `${options.traces} traces + ${size.ledgers} ledgers + ${size.commitLinks} commit links + ${summaries} summaries`;
  return [
    {
      ...ratioResult('12b. push with redaction', `${what} captured before redaction`, median(samples.tracer), median(samples.raw), 1.0),
      samples: { tracer: samples.tracer, baseline: samples.raw },
    },
    {
      ...ratioResult('12b. the same push without redaction (!redact)', what, median(samples.plain), median(samples.raw), 1.0),
      bar: 'for reference: redaction adds the row above less this one',
      pass: true,
      samples: { tracer: samples.plain, baseline: samples.raw },
    },
  ];
}

/** Summaries as an older tracer left them (no `redacted` mark), a tenth holding a secret; `redacted`: as tracer sends them. */
function writeSummaries(dir: string, count: number, redacted: boolean): void {
  const v = new Values(29);
  const lines: string[] = [];
  for (let n = 0; n < count; n += 1) {
    const secret = `ghp_${v.pick(ALNUM, 36)}`;
    const words = `Refactored the session store and added tests for the refresh path, step ${n}.`;
    const text = n % 10 === 0 ? `${words} Used ${redacted ? '[REDACTED:github-token:0a1b2c]' : secret} for the remote.` : words;
    const record = withContentId(
      {
        ts: new Date(Date.UTC(2024, 4, 1) + n * 1000).toISOString(),
        conversation_url: `claude-code://session/s${n}`,
        summary: text,
        agent: 'claude-code',
        conversation_id: `s${n}`,
        ...(redacted && n % 10 === 0 ? { redacted: true } : {}),
      },
      'id',
    );
    lines.push(JSON.stringify(record));
  }
  writeFileSync(join(dir, 'session-summaries.jsonl'), `${lines.join('\n')}\n`);
}

async function corpusFigures(log: (line: string) => void) {
  const figures = await measureCorpus({ perRule: 20 });
  const pii = await measureCorpus({ pii: true, perRule: 20 });
  const rows = [...figures.rules, ...pii.rules.filter((rule) => rule.samples > 0)];
  log('  | rule | samples | redacted | named by the rule | false positives (of ' + figures.benign + ' benign strings) |');
  log('  |---|---:|---:|---:|---:|');
  for (const rule of rows) log(`  | ${rule.rule} | ${rule.samples} | ${rule.redacted} | ${rule.named} | ${rule.falsePositives} |`);
  log(`  benign strings changed: ${figures.benignChanged} of ${figures.benign} (${pii.benignChanged} with redact.pii on)`);
  return { rows, benign: figures.benign, changed: figures.benignChanged + pii.benignChanged };
}

function corpusRow(figures: Awaited<ReturnType<typeof corpusFigures>>): Result {
  const samples = figures.rows.reduce((sum, rule) => sum + rule.samples, 0);
  const redacted = figures.rows.reduce((sum, rule) => sum + rule.redacted, 0);
  const falsePositives = figures.rows.reduce((sum, rule) => sum + rule.falsePositives, 0);
  return {
    workload: '12c. corpus: recall and false positives',
    size: `${figures.rows.length} rules, ${samples} secrets, ${figures.benign} benign strings`,
    bar: 'every secret redacted, no benign string changed',
    pass: redacted === samples && figures.changed === 0,
    notes: `recall ${redacted}/${samples}, false positives ${falsePositives}, benign strings changed ${figures.changed}`,
  };
}
