import { appendFileSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/cli.js';
import { hook } from '../capture/hook-fixtures.js';
import { INDEX_FILE } from '../../src/search/local-index.js';
import { CLAUDE_SESSION, CODEX_SESSION, GEMINI_SESSION, PROMPTS, SECRET, threeAgents } from './agents-fixture.js';

/**
 * `tracer search` over conversations captured through the real hooks of
 * Claude Code, Codex and Gemini: ranked hits with their agent, model, marked
 * snippet and viewer path; filters; redaction (the placeholder is indexed,
 * never the secret); forget; an index that is damaged, of another version, or
 * behind the store; and hostile queries, each refused with invalid_query.
 */
test.after(cleanup);

let shared: Awaited<ReturnType<typeof threeAgents>> | undefined;
async function box() {
  shared ??= await threeAgents();
  return shared;
}

function projectDir(home: string): string {
  const [name] = readdirSync(join(home, 'projects'));
  return join(home, 'projects', name!);
}

async function search(args: string[], from?: Awaited<ReturnType<typeof threeAgents>>) {
  const b = from ?? (await box());
  const result = await b.run(['search', ...args, '--json']);
  assert.is(result.code, 0, result.stderr);
  return JSON.parse(result.stdout).hits as Array<Record<string, any>>;
}

test("each agent's conversation is found by its prompt, its assistant's words and the files it wrote; hits carry agent, model, snippet and path", async () => {
  const hits = await search(['"reverse proxy"']);
  assert.is(hits.length, 1);
  const [hit] = hits;
  assert.is(hit!.conversation_id, CODEX_SESSION);
  assert.is(hit!.agent, 'codex');
  assert.is(hit!.model, 'gpt-5.5');
  assert.match(hit!.snippet, /«reverse( proxy»|» «proxy»)/);
  assert.match(hit!.url, new RegExp(`^/p/[^/]+/sessions/${CODEX_SESSION}$`));
  assert.ok(typeof hit!.ts === 'string' && hit!.ts.length > 0);
  assert.equal(
    (await search(['f-string'])).map((h) => [h.conversation_id, h.agent, h.model]),
    [[GEMINI_SESSION, 'gemini', 'gemini-2.5-flash']],
  );
  assert.equal(
    (await search(['requirements.txt'])).map((h) => h.conversation_id),
    [CLAUDE_SESSION],
    'the file the tool call named (and the assistant said)',
  );
  assert.equal(
    (await search(['greet.py'])).map((h) => h.conversation_id),
    [GEMINI_SESSION],
    'a file named only by a tool call',
  );
});

test('a conversation that edited no file: agent and model come from its transcript', async () => {
  const b = await box();
  const session = '0d6a1f3c-2e4b-4c8d-9a7e-5b3c1d2e4f60';
  const transcript = join(b.repo, '..', `${session}.jsonl`);
  const row = (type: string, content: unknown, ts: string) => ({
    type,
    sessionId: session,
    cwd: b.repo,
    uuid: `${type}-${ts}`,
    timestamp: ts,
    message: type === 'user' ? { role: 'user', content } : { model: 'claude-opus-4-1-20250805', role: 'assistant', content },
  });
  writeFileSync(
    transcript,
    [
      row('user', 'What does a wombat eat?', '2026-01-13T10:00:00.000Z'),
      row('assistant', [{ type: 'text', text: 'Grasses and roots, mostly.' }], '2026-01-13T10:00:02.000Z'),
    ]
      .map((line) => JSON.stringify(line))
      .join('\n') + '\n',
  );
  const stop = { session_id: session, transcript_path: transcript, cwd: b.repo, hook_event_name: 'Stop', stop_hook_active: false };
  await hook('claude-code', 'Stop', JSON.stringify(stop), { cwd: b.repo, home: b.home });
  assert.equal(
    (await search(['wombat'])).map((hit) => [hit.conversation_id, hit.agent, hit.model]),
    [[session, 'claude-code', 'claude-opus-4-1-20250805']],
  );
  assert.equal(
    (await search(['wombat', '--agent', 'claude-code'])).map((hit) => hit.conversation_id),
    [session],
  );
});

test('commit subjects are searched; prefix, OR, NOT, phrases; BM25 puts the conversation that says it most first', async () => {
  const all = await search(['quarterly']);
  assert.equal(
    all.map((h) => h.conversation_id).sort(),
    [CLAUDE_SESSION, CODEX_SESSION, GEMINI_SESSION].sort(),
    'every conversation behind the commit',
  );
  assert.ok(all.every((h) => h.commits.length === 1));
  assert.equal(
    (await search(['migrat*'])).map((h) => h.conversation_id),
    [CODEX_SESSION],
  );
  assert.equal((await search(['numpy OR greet'])).map((h) => h.conversation_id).sort(), [CLAUDE_SESSION, GEMINI_SESSION].sort());
  assert.equal(
    (await search(['quarterly NOT numpy NOT proxy'])).map((h) => h.conversation_id),
    [GEMINI_SESSION],
  );
  assert.equal(await search(['"proxy reverse"']), [], 'a phrase keeps its order');
  const ranked = await search(['numpy OR proxy OR greet']);
  assert.is(ranked.length, 3);
  for (let at = 1; at < ranked.length; at += 1) assert.ok(ranked[at - 1]!.score >= ranked[at]!.score, 'best first');
  assert.ok(
    ranked.every((hit) => hit.score > 0),
    `a store of three conversations still scores above zero: ${ranked.map((hit) => hit.score)}`,
  );
  // Words given unquoted are one query, as if quoted as a whole.
  assert.equal((await search(['numpy', 'OR', 'greet'])).map((h) => h.conversation_id).sort(), [CLAUDE_SESSION, GEMINI_SESSION].sort());
});

test('--agent, --since, --until, --author and --limit narrow the hits', async () => {
  assert.equal(
    (await search(['quarterly', '--agent', 'gemini'])).map((h) => h.conversation_id),
    [GEMINI_SESSION],
  );
  assert.equal(await search(['quarterly', '--agent', 'cursor']), []);
  assert.is((await search(['quarterly', '--since', '2000-01-01'])).length, 3);
  assert.is((await search(['quarterly', '--until', '2000-01-01'])).length, 0);
  assert.is((await search(['quarterly', '--since', '2999-01-01'])).length, 0);
  assert.is((await search(['quarterly', '--author', 'ALICE@example'])).length, 3);
  assert.is((await search(['quarterly', '--author', 'bob'])).length, 0);
  // A later link of the same commit names its author without the email: git's answer, with it, stays.
  const links = join(projectDir((await box()).home), 'commit-links.jsonl');
  appendFileSync(links, readFileSync(links, 'utf8').trim().split('\n').at(-1)! + '\n');
  assert.is((await search(['quarterly', '--author', 'alice@example.com'])).length, 3, 'the email still matches');
  assert.is((await search(['quarterly', '--limit', '2'])).length, 2);
  const b = await box();
  const bad = await b.run(['search', 'x', '--limit', '0']);
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /--limit takes a number from 1 to 200/);
  const since = await b.run(['search', 'x', '--until', 'yesterday']);
  assert.is(since.code, 2);
});

test('the built binary matches --author by email, or a part of it, case-insensitive', async () => {
  // The binary loads child_process late (scripts/lazy-builtins.mjs); git's author, with the email, must still be
  // read when it builds the index (--reindex: built by the binary, not by the in-process runs before).
  const b = await box();
  for (const author of ['alice@example.com', 'EXAMPLE.com', 'Alice']) {
    const result = await b.spawn(['search', 'quarterly', '--author', author, '--json', '--reindex']);
    assert.is(result.code, 0, result.stderr);
    assert.is(JSON.parse(result.stdout).hits.length, 3, author);
  }
});

test('the text output names each hit and marks the match', async () => {
  const b = await box();
  const result = await b.run(['search', 'proxy']);
  assert.is(result.code, 0, result.stderr);
  assert.match(result.stdout, new RegExp(`^${CODEX_SESSION}  \\S+  codex · gpt-5\\.5$`, 'm'));
  assert.match(result.stdout, /«proxy»/);
  assert.match(result.stdout, /\/sessions\//);
  assert.match((await b.run(['search', 'zebra'])).stdout, /^No conversation matches\.$/m);
});

test('redaction holds: the secret is in neither the hits nor the index file; its placeholder is searchable', async () => {
  assert.equal(await search([`"${SECRET}"`]), []);
  assert.equal(await search([`${SECRET.slice(0, 8)}*`]), []);
  const placeholder = await search(['"REDACTED github-token"']);
  assert.equal(
    placeholder.map((h) => h.conversation_id),
    [CLAUDE_SESSION],
  );
  assert.match(placeholder[0]!.snippet, /\[«REDACTED.{1,4}github.{1,4}token».{0,2}:[0-9a-f]{6}\]/);
  const dir = projectDir((await box()).home);
  for (const name of readdirSync(join(dir, 'cache'))) {
    const bytes = readFileSync(join(dir, 'cache', name));
    assert.not.ok(bytes.includes(SECRET), `${name} holds no secret`);
    assert.not.ok(bytes.includes(PROMPTS.claude), `${name} holds no unredacted prompt`);
  }
});

test('a secret in a commit subject is indexed as its placeholder, never as the secret', async () => {
  const b = await threeAgents();
  const token = `ghp_${'Zx9Cv8Bn7M'.repeat(3)}q1W2e3`;
  const dir = projectDir(b.home);
  // A commit the Claude Code session led to, whose message holds a token (the link carries its subject).
  appendFileSync(
    join(dir, 'commit-links.jsonl'),
    `${JSON.stringify({ commit: 'd'.repeat(40), session_ids: [CLAUDE_SESSION], subject: `Rotate the deploy key to ${token}`, ts: '2026-01-02T00:00:00Z' })}\n`,
  );
  assert.equal(await search([`"${token}"`], b), []);
  const rotated = await search(['rotate'], b);
  assert.equal(
    rotated.map((hit) => hit.conversation_id),
    [CLAUDE_SESSION],
  );
  assert.match(rotated[0]!.snippet, /REDACTED:github-token:[0-9a-f]{6}/);
  assert.not.ok(readFileSync(join(dir, INDEX_FILE)).includes(token), 'the index file holds no secret');
});

test('hostile queries: invalid_query and a sentence, never a stack, whatever the index holds', async () => {
  const b = await box();
  for (const [query, sentence] of [
    ['"unclosed', /not closed/],
    ['a'.repeat(10_000), /characters long/],
    ['retry\0logic', /NUL/],
    ['AND OR', /no words/],
    ['(retry', /out of place|parenthes/i],
    ['   ', /empty/],
  ] as const) {
    const result = await b.run(['search', query]);
    assert.is(result.code, 2, `${JSON.stringify(query.slice(0, 20))}: ${result.stderr}`);
    assert.match(result.stderr, /invalid_query/);
    assert.match(result.stderr, sentence);
    assert.not.match(result.stderr, /\n\s+at /, 'no stack');
  }
  // What FTS5 would read as syntax is text here.
  for (const query of ['prompts:numpy', 'numpy^', 'NEAR(numpy greet)', "it's", '"a""b"', '-numpy', 'numpy)(', '{prompts}: x', '*']) {
    const result = await b.run(['search', '--json', '--', query]);
    assert.ok(result.code === 0 || /invalid_query/.test(result.stderr), `${query}: ${result.stderr}`);
    assert.not.match(result.stderr, /fts5|sqlite/i, query);
  }
});

test('a damaged index, or one of another schema version, is built again; --reindex builds it from nothing', async () => {
  const b = await threeAgents();
  const path = join(projectDir(b.home), INDEX_FILE);
  assert.is((await search(['numpy'], b)).length, 1);
  writeFileSync(path, 'this is not a database, '.repeat(200));
  for (const suffix of ['-wal', '-shm']) writeFileSync(`${path}${suffix}`, '');
  assert.is((await search(['numpy'], b)).length, 1, 'garbage: rebuilt');
  const { default: Sqlite } = await import('better-sqlite3');
  const db = new Sqlite(path);
  db.prepare("UPDATE meta SET value = '0' WHERE key = 'schema'").run();
  db.prepare('DELETE FROM docs').run();
  db.close();
  assert.is((await search(['numpy'], b)).length, 1, 'another version: rebuilt');
  // Pages damaged past the header: SQLite's error is met by the sync or the query, and the index is built again.
  const { openSync, writeSync, closeSync, fstatSync } = await import('node:fs');
  const fd = openSync(path, 'r+');
  const size = fstatSync(fd).size;
  writeSync(fd, Buffer.alloc(size - 4096, 0xa5), 0, size - 4096, 4096);
  closeSync(fd);
  for (const suffix of ['-wal', '-shm']) writeFileSync(`${path}${suffix}`, '');
  assert.equal(
    (await search(['numpy OR proxy'], b)).map((h) => h.conversation_id).sort(),
    [CLAUDE_SESSION, CODEX_SESSION].sort(),
    'damaged pages: rebuilt',
  );
  const reindex = await b.run(['search', '--reindex']);
  assert.is(reindex.code, 0, reindex.stderr);
  assert.match(reindex.stdout, /^Indexed 3 conversations/);
  assert.ok(statSync(path).size > 0);
});

test('a new snapshot is indexed at the next search without --reindex; forget takes the conversation out of the index at once', async () => {
  const b = await threeAgents();
  const dir = projectDir(b.home);
  assert.equal(await search(['kumquat'], b), []);
  // Gemini's chat grows; its next AfterAgent snapshots it again.
  const rows = readFileSync(join(dir, 'traces.jsonl'), 'utf8');
  assert.match(rows, /gemini/);
  const fixture = JSON.parse(readFileSync(new URL('../fixtures/agents/gemini/AfterAgent.json', import.meta.url), 'utf8'));
  const transcriptOf = (await search(['f-string'], b))[0]!;
  assert.is(transcriptOf.conversation_id, GEMINI_SESSION);
  const chat = join(b.repo, '..', 'gemini-grown.jsonl');
  writeFileSync(
    chat,
    `${JSON.stringify({ id: 'u1', timestamp: '2026-01-13T08:00:00.000Z', type: 'user', content: 'Now add a kumquat emoji' })}\n`,
  );
  appendFileSync(
    chat,
    `${JSON.stringify({ id: 'g9', timestamp: '2026-01-13T08:00:02.000Z', type: 'gemini', content: 'Added.', model: 'gemini-2.5-pro' })}\n`,
  );
  await hook('gemini', 'AfterAgent', JSON.stringify({ ...fixture, cwd: b.repo, transcript_path: chat }), { cwd: b.repo, home: b.home });
  assert.equal(
    (await search(['kumquat'], b)).map((h) => h.conversation_id),
    [GEMINI_SESSION],
  );

  const forget = await b.run(['forget', '--conversation', GEMINI_SESSION, '--local-only', '--yes']);
  assert.is(forget.code, 0, forget.stderr);
  assert.equal(await search(['kumquat'], b), [], 'gone from the index');
  assert.equal(
    await search(['quarterly'], b).then((hits) => hits.map((h) => h.conversation_id).sort()),
    [CLAUDE_SESSION, CODEX_SESSION].sort(),
  );
  const bytes = readFileSync(join(dir, INDEX_FILE));
  assert.not.ok(bytes.includes('kumquat'), 'its text is not left in the index file');
});

test('hostile transcripts: binary bytes, a 40 MB line, a planted link and FTS syntax inside a prompt are read safely; the rest is indexed', async () => {
  const b = await threeAgents();
  const dir = projectDir(b.home);
  const { createHash, randomBytes } = await import('node:crypto');
  const { mkdirSync, symlinkSync } = await import('node:fs');
  const index = JSON.parse(readFileSync(join(dir, 'conversations', '_index.json'), 'utf8'));
  const plant = (id: string, bytes: Buffer) => {
    const sha = createHash('sha256').update(bytes).digest('hex');
    mkdirSync(join(dir, 'conversations', sha.slice(0, 2)), { recursive: true });
    writeFileSync(join(dir, 'conversations', sha.slice(0, 2), sha), bytes);
    index[id] = sha;
    return sha;
  };
  plant('hostile-binary', randomBytes(256 * 1024));
  plant('hostile-long-line', Buffer.from(`{"type":"user","message":{"role":"user","content":"${'x'.repeat(40 * 2 ** 20)}"}}\n`));
  const prompt = 'NEAR( "unclosed prompts:col * AND OR \u0000 \ud800 quokka';
  plant(
    'hostile-syntax',
    Buffer.from(
      `${JSON.stringify({ type: 'user', sessionId: 'hostile-syntax', uuid: 'u', timestamp: '2026-01-01T00:00:00Z', message: { role: 'user', content: prompt } })}\n{not json\n${'['.repeat(100_000)}\n`,
    ),
  );
  // A link where a snapshot should be: never followed.
  const outside = join(b.repo, '..', 'outside.jsonl');
  writeFileSync(outside, `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'wombat secret outside' } })}\n`);
  const linkSha = 'ab'.repeat(32);
  mkdirSync(join(dir, 'conversations', 'ab'), { recursive: true });
  symlinkSync(outside, join(dir, 'conversations', 'ab', linkSha));
  index['hostile-link'] = linkSha;
  index['hostile-not-a-sha'] = '../../../../etc/passwd';
  writeFileSync(join(dir, 'conversations', '_index.json'), JSON.stringify(index));

  assert.equal(
    (await search(['quokka'], b)).map((h) => h.conversation_id),
    ['hostile-syntax'],
  );
  assert.equal(await search(['wombat'], b), [], 'the link was not followed');
  assert.equal(
    (await search(['numpy'], b)).map((h) => h.conversation_id),
    [CLAUDE_SESSION],
    'the others are indexed',
  );
  const reindex = await b.run(['search', '--reindex', '--json']);
  assert.is(reindex.code, 0, reindex.stderr);
});

test.run();
