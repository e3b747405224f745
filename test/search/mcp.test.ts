import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, readdirSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN, cleanEnv, cleanup } from '../helpers/cli.js';
import { ASSISTANT, CODEX_SESSION, GEMINI_SESSION, PROMPTS, threeAgents } from './agents-fixture.js';

/**
 * `tracer mcp` through the SDK's own Client and StdioClientTransport, spawning
 * the built binary as an agent does: the tools are listed with their schemas,
 * each answers, bad arguments are tool errors after which the server still
 * serves, a 100 MB transcript gives a bounded window, and nothing in the store
 * changes.
 */
test.after(cleanup);

type Box = Awaited<ReturnType<typeof threeAgents>>;

async function connect(b: Box, cwd = b.repo): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp'],
    cwd,
    env: { ...(cleanEnv() as Record<string, string>), TRACER_HOME: b.home },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'tracer-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

function json(result: any): any {
  assert.not.ok(result.isError, `tool error: ${result.content?.[0]?.text}`);
  return JSON.parse(result.content[0].text);
}

function storeDigest(home: string): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.name === 'cache') continue; // the search index: a cache
      if (entry.isDirectory()) walk(path);
      else hash.update(path).update(readFileSync(path));
    }
  };
  walk(join(home, 'projects'));
  return hash.digest('hex');
}

let shared: Box | undefined;
const box = async () => (shared ??= await threeAgents());

test('lists six tools with JSON schemas; each answers', async () => {
  const b = await box();
  const before = storeDigest(b.home);
  const client = await connect(b);
  try {
    const { tools } = await client.listTools();
    assert.equal(tools.map((tool) => tool.name).sort(), ['blame', 'read_conversation', 'search', 'show_commit', 'stats', 'why']);
    for (const tool of tools) {
      assert.is(tool.inputSchema.type, 'object', tool.name);
      assert.ok(tool.description && tool.description.length > 20, tool.name);
    }
    assert.equal(tools.find((tool) => tool.name === 'search')!.inputSchema.required, ['query']);

    const search = json(await client.callTool({ name: 'search', arguments: { query: 'reverse proxy' } }));
    assert.equal(
      search.hits.map((hit: any) => [hit.conversation_id, hit.agent]),
      [[CODEX_SESSION, 'codex']],
    );

    const why = json(await client.callTool({ name: 'why', arguments: { file: 'greet.py', line: 2 } }));
    assert.equal(
      [why.lines[0].conversation_id, why.lines[0].prompt, why.lines[0].assistant_before],
      [GEMINI_SESSION, PROMPTS.gemini, ASSISTANT.geminiBefore],
    );

    const blame = json(await client.callTool({ name: 'blame', arguments: { file: 'greet.py' } }));
    assert.equal(
      blame.lines.map((line: any) => line.type),
      ['human', 'ai'],
    );

    const show = json(await client.callTool({ name: 'show_commit', arguments: {} }));
    assert.is(show.commit, b.head);

    const read = json(await client.callTool({ name: 'read_conversation', arguments: { conversation_id: CODEX_SESSION, turn: 1 } }));
    assert.is(read.last_turn, 1);
    assert.ok(read.items.some((item: any) => item.kind === 'message' && item.text === PROMPTS.codex));
    assert.ok(read.items.some((item: any) => item.kind === 'tool_call' && item.name === 'apply_patch'));

    const stats = json(await client.callTool({ name: 'stats', arguments: { range: `${b.base}..HEAD` } }));
    assert.ok(stats.lines.ai >= 4, JSON.stringify(stats.lines));
    assert.ok(stats.by_agent.codex >= 1);
  } finally {
    await client.close();
  }
  assert.is(storeDigest(b.home), before, 'read-only: the store is as it was');
});

test('bad arguments are tool errors with a sentence, and the server keeps serving', async () => {
  const b = await box();
  const client = await connect(b);
  try {
    const bad: [string, Record<string, unknown>, RegExp][] = [
      ['search', {}, /"query" is required/],
      ['search', { query: '"unclosed' }, /not closed.*invalid_query/],
      ['search', { query: 'x'.repeat(5_000) }, /characters long/],
      ['search', { query: 'a\0b' }, /NUL/],
      ['search', { query: 'x', limit: 'ten' }, /"limit" must be an integer/],
      ['search', { query: 'x', since: 'last week' }, /"since" must be an ISO-8601 date/],
      ['search', { query: 'x', color: 'red' }, /"color" is not an argument of search/],
      ['why', { file: 'greet.py' }, /"line" is required/],
      ['why', { file: 'greet.py', line: 0 }, /"line" must be an integer/],
      ['why', { file: 'greet.py', line: 99 }, /line_out_of_range/],
      ['why', { file: 'greet.py', line: 1, end_line: 40 }, /line_out_of_range/],
      ['blame', { file: 'greet.py', start_line: 99 }, /line_out_of_range/],
      ['why', { file: 'no/such.py', line: 1 }, /./],
      ['blame', { file: 42 }, /"file" is required/],
      ['show_commit', { commit: '--output=/tmp/x' }, /revision, not an option/],
      ['show_commit', { commit: 'nosuchrev' }, /./],
      ['read_conversation', { conversation_id: 'nope' }, /No transcript of conversation "nope"/],
      ['read_conversation', { conversation_id: CODEX_SESSION, turns: 500 }, /"turns" must be an integer/],
      ['read_conversation', { conversation_id: CODEX_SESSION, turn: 0 }, /"turn" must be an integer from 1/],
      ['stats', { by: 'planet' }, /"by" must be/],
      ['no_such_tool', {}, /There is no tool "no_such_tool"/],
    ];
    for (const [name, args, message] of bad) {
      const result: any = await client.callTool({ name, arguments: args });
      assert.ok(result.isError, `${name} ${JSON.stringify(args).slice(0, 60)} is a tool error`);
      assert.match(result.content[0].text, message, name);
      assert.not.match(result.content[0].text, /\n\s+at /, 'no stack');
    }
    // Still serving.
    assert.is(json(await client.callTool({ name: 'search', arguments: { query: 'numpy' } })).hits.length, 1);
  } finally {
    await client.close();
  }
});

test('started in a subfolder: why and blame take the path from the repository root, or from the folder', async () => {
  const b = await box();
  const sub = join(b.repo, 'docs', 'notes');
  mkdirSync(sub, { recursive: true });
  const client = await connect(b, sub);
  try {
    for (const file of ['greet.py', '../../greet.py']) {
      const why = json(await client.callTool({ name: 'why', arguments: { file, line: 2 } }));
      assert.equal([why.path, why.lines[0].conversation_id], ['greet.py', GEMINI_SESSION], file);
      const blame = json(await client.callTool({ name: 'blame', arguments: { file } }));
      assert.equal([blame.path, blame.lines.map((line: any) => line.type)], ['greet.py', ['human', 'ai']], file);
    }
    // A path that names no file either way is still refused, as written.
    const missing: any = await client.callTool({ name: 'blame', arguments: { file: 'no/such.py' } });
    assert.ok(missing.isError);
    assert.match(missing.content[0].text, /"no\/such\.py".*path_not_tracked/);
  } finally {
    await client.close();
  }
});

test('a 100 MB transcript: read_conversation returns a bounded window, turn by turn', async () => {
  const b = await threeAgents();
  const dir = join(b.home, 'projects', readdirSync(join(b.home, 'projects'))[0]!);
  // A Gemini chat of 2,000 turns with a 60 KB answer each: about 120 MB, stored as a snapshot.
  const path = join(b.repo, '..', 'huge.jsonl');
  const fd = openSync(path, 'w');
  const bulk = 'y'.repeat(60_000);
  for (let turn = 1; turn <= 2_000; turn += 1) {
    writeSync(
      fd,
      `${JSON.stringify({ id: `u${turn}`, timestamp: '2026-01-20T10:00:00.000Z', type: 'user', content: `turn ${turn} prompt` })}\n`,
    );
    writeSync(
      fd,
      `${JSON.stringify({ id: `g${turn}`, timestamp: '2026-01-20T10:00:01.000Z', type: 'gemini', content: `answer ${turn} ${bulk}`, model: 'gemini-2.5-pro' })}\n`,
    );
  }
  closeSync(fd);
  const bytes = readFileSync(path);
  assert.ok(bytes.length > 100_000_000);
  const sha = createHash('sha256').update(bytes).digest('hex');
  mkdirSync(join(dir, 'conversations', sha.slice(0, 2)), { recursive: true });
  writeFileSync(join(dir, 'conversations', sha.slice(0, 2), sha), bytes);
  const index = JSON.parse(readFileSync(join(dir, 'conversations', '_index.json'), 'utf8'));
  writeFileSync(join(dir, 'conversations', '_index.json'), JSON.stringify({ ...index, 'huge-session': sha }));
  const client = await connect(b);
  try {
    for (const turn of [1, 1500]) {
      // Ten turns of 60 KB answers: the read stops at its 512 KB, and says the window is not complete.
      const wide: any = await client.callTool({
        name: 'read_conversation',
        arguments: { conversation_id: 'huge-session', turn, turns: 10 },
      });
      assert.not.ok(wide.isError, wide.content[0].text);
      assert.ok(wide.content.map((part: any) => part.text).join('').length <= 61_000);
      const partial = JSON.parse(wide.content[0].text);
      assert.is(partial.complete, false);
      assert.ok(partial.items.length < 20 && partial.items.length >= 2, `${partial.items.length} items`);
      // Three turns fit: each item clipped, the window where it was asked.
      const result: any = await client.callTool({
        name: 'read_conversation',
        arguments: { conversation_id: 'huge-session', turn, turns: 3 },
      });
      assert.is(result.content.length, 1);
      const window = JSON.parse(result.content[0].text);
      assert.is(window.last_turn, 2000);
      assert.is(window.items.length, 6);
      assert.is(window.items[0].text, `turn ${turn} prompt`);
      assert.is(window.items[5].text.length, 4_001);
      assert.ok(window.items[5].truncated);
    }
  } finally {
    await client.close();
  }
});

test.run();
