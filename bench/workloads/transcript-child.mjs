// Run as a child of workload 12 (transcripts.ts), on the built reader (dist/):
// one operation on one transcript, its time printed as JSON, so that its peak
// memory is the OS's figure for this process alone.
// argv: <dist dir> <operation: items | usage | turns | window> <file> [turn]
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const [dist, operation, file, turnArg] = process.argv.slice(2);
const load = (path) => import(pathToFileURL(join(dist, path)).href);
const { transcriptFormat } = await load('transcript/agents.js');
const { readItems, readWindow, turnStarts } = await load('transcript/read.js');
const { readUsage } = await load('transcript/usage.js');
const { fileSource } = await load('transcript/source.js');
const format = await transcriptFormat('claude-code');
const source = await fileSource(file);
const started = performance.now();
let result;
if (operation === 'items') {
  let items = 0;
  for await (const _item of readItems(source, format)) items += 1;
  result = { items };
} else if (operation === 'usage') {
  const report = await readUsage(source, format);
  result = { records: report.records.length };
} else if (operation === 'turns') {
  result = { turns: (await turnStarts(source, format)).length - 1 };
} else {
  // The window `tracer mcp read_conversation` asks for: the turn's start found by the scan, then at most 50 items of it.
  const starts = await turnStarts(source, format);
  const scanned = performance.now();
  const turn = Math.min(Number(turnArg), starts.length - 1);
  const window = await readWindow(source, format, { from: starts[turn], untilTurn: turn + 1, maxItems: 50, maxBytes: 1 << 20 });
  result = { scanMs: scanned - started, windowMs: performance.now() - scanned, items: window.items.length };
}
process.stdout.write(JSON.stringify({ ms: performance.now() - started, ...result }));
