// Workload 5: `tracer hook claude-code PostToolUse` with the recorded Edit
// payload (test/fixtures/hooks), in an initialized repository, against
// `node -e 0`; the two alternate so machine load hits both alike.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clientHome, ROOT, runFolder } from '../environment.js';
import { expectOk, measure, median, round } from '../measure.js';
import type { Result } from '../report.js';

export async function hookWorkload(options: { runs: number }, log: (line: string) => void): Promise<Result[]> {
  const dir = runFolder('hook');
  const client = await clientHome(dir);
  const fixtures = join(ROOT, 'test', 'fixtures', 'hooks', 'claude-code');
  const transcript = join(dir, 'transcript.jsonl');
  copyFileSync(join(fixtures, 'transcript.jsonl'), transcript);
  mkdirSync(join(client.repo, 'src'), { recursive: true });
  writeFileSync(
    join(client.repo, 'src', 'main.ts'),
    "// entry point\nimport { greet } from './greet.js';\n\nconsole.log(greet('world'));\nexport {};\n",
  );
  const payload = readFileSync(join(fixtures, 'PostToolUse.Edit.json'), 'utf8')
    .replaceAll('__REPO__', client.repo)
    .replaceAll('__TRANSCRIPT__', transcript);
  const hook = client.spec(['hook', 'claude-code', 'PostToolUse'], { input: payload });
  const bare = { command: process.execPath, args: ['-e', '0'] };
  const hooks: number[] = [];
  const nodes: number[] = [];
  // One warm-up each: the first run pays for cold file caches.
  await measure(hook);
  await measure(bare);
  for (let n = 0; n < options.runs; n += 1) {
    const result = expectOk(await measure(hook), 'tracer hook');
    if (result.stdout !== '') throw new Error(`tracer hook printed ${JSON.stringify(result.stdout)}`);
    hooks.push(result.wallMs);
    nodes.push(expectOk(await measure(bare), 'node -e 0').wallMs);
  }
  const rows = readFileSync(join(client.projectDir, 'traces.jsonl'), 'utf8').split('\n').filter(Boolean).length;
  if (rows < options.runs) throw new Error(`the hook recorded ${rows} traces for ${options.runs + 1} runs`);
  const ratio = median(hooks) / median(nodes);
  log(`  hook median ${round(median(hooks))} ms, node -e 0 median ${round(median(nodes))} ms over ${options.runs} runs`);
  return [
    {
      workload: '5. hook latency',
      size: `claude-code PostToolUse (Edit), ${options.runs} runs`,
      tracerMs: round(median(hooks)),
      baselineMs: round(median(nodes)),
      baselineLabel: 'node -e 0',
      ratio: round(ratio),
      bar: '≤ 1.5× node -e 0',
      pass: ratio <= 1.5,
      samples: { tracer: hooks, baseline: nodes },
    },
  ];
}
