import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/cli.js';
import { onPostgres, startService, stopAllServices, type ServiceHandle } from '../helpers/service.js';
import { signIn, tokenWithRole } from '../privacy/support.js';
import { clientFor, commitLink, conversation, ledger, summary, trace, type Client } from './http.js';
import { until } from './team-backlog.js';
import type { SearchResults } from '../../src/viewer/data-source.js';

/**
 * The team view's search (issue 32), on each backend, from pushed rows: a
 * Claude Code transcript read through its agent's reader (prompts, assistant
 * messages, the paths its tool calls wrote), a summary, commit subjects. Hits
 * are scoped to the signed-in token's project and role; a query that cannot
 * be read is 400 invalid_query; a forget or a retention run takes the text
 * out of the index at once; hostile transcripts are indexed as text.
 */
const SESSION = 'c-retry';
const OLD = 'c-old';
const HOSTILE = 'c-hostile';
const COMMIT = 'c'.repeat(40);

function claudeTranscript(session: string, prompt: string, answer: string, file: string): Buffer {
  const base = { isSidechain: false, userType: 'external', cwd: '/work/app', sessionId: session, version: '2.0.14' };
  const lines = [
    { ...base, type: 'user', uuid: `${session}-1`, timestamp: '2024-05-01T12:00:00.000Z', message: { role: 'user', content: prompt } },
    {
      ...base,
      type: 'assistant',
      uuid: `${session}-2`,
      timestamp: '2024-05-01T12:00:02.000Z',
      message: {
        id: `msg-${session}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [
          { type: 'text', text: answer },
          { type: 'tool_use', id: `tool-${session}`, name: 'Write', input: { file_path: file, content: 'export const x = 1;\n' } },
        ],
      },
    },
  ];
  return Buffer.from(lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
}

/** A transcript that tries everything: NULs, the snippet's own marker characters, a torn line, markup, lone surrogates, a huge line. */
function hostileTranscript(): Buffer {
  const text = [
    'Look at <script>window.__pwned = 1</script> and the \u0000 NUL and \u0002marker\u0003 characters',
    'a lone \ud800 surrogate, "quotes" AND OR NOT ( ) * : ^ in the text',
    `${'filler '.repeat(12_000)}needle at the end of a long message`,
  ].join('\n');
  const good = claudeTranscript(HOSTILE, 'hostile prompt with platypus', text, '/work/app/evil/"quoted" path.ts');
  return Buffer.concat([Buffer.from('{"torn": \n\u0000\u0000not json at all\n'), good, Buffer.from('{"type":"user","message":')]);
}

function searchSuite(backend: 'sqlite' | 'postgres') {
  const test = suite<{
    service: ServiceHandle;
    admin: Client;
    cookies: Record<'read' | 'push' | 'admin' | 'neighbour' | 'stranger', string>;
  }>(`team view search (${backend})`);

  test.before(async (context) => {
    // uvu reports a failing before hook as no test run at all: the run must fail, and say why.
    await setUp(context).catch((error: unknown) => {
      console.error('team search set-up failed:', error);
      process.exitCode = 1;
      throw error;
    });
  });
  async function setUp(context: { service: ServiceHandle; admin: Client; cookies: Record<string, string> }) {
    const service = await startService({ backend });
    for (const [org, project] of [
      ['acme', 'web'],
      ['acme', 'api'],
      ['globex', 'shop'],
    ])
      await service.createProject(org!, project!);
    const tokens = {
      read: await tokenWithRole(service, { org: 'acme', project: 'web', name: 'reader', role: 'read' }),
      push: await tokenWithRole(service, { org: 'acme', project: 'web', name: 'ci', role: 'push' }),
      admin: await tokenWithRole(service, { org: 'acme', project: 'web', name: 'ada', role: 'admin' }),
      neighbour: await tokenWithRole(service, { org: 'acme', project: 'api', name: 'api-dev', role: 'read' }),
      stranger: await tokenWithRole(service, { org: 'globex', name: 'globex-lead', role: 'admin' }),
    };
    const web = clientFor(service, tokens.admin, 'acme', 'web');
    const transcripts = [
      conversation(
        claudeTranscript(
          SESSION,
          'Where is the retry logic with exponential backoff?',
          'The retry logic lives in the fetch client; I added jittered backoff.',
          '/work/app/src/net/retry.ts',
        ),
        true,
        { conversation_id: SESSION },
      ),
      conversation(claudeTranscript(OLD, 'Feed the quokka', 'The quokka is fed.', '/work/app/zoo.ts'), true, { conversation_id: OLD }),
      conversation(hostileTranscript(), true, { conversation_id: HOSTILE }),
    ];
    const expect200 = (reply: { status: number; text: string }) => assert.is(reply.status, 200, reply.text);
    expect200(
      await web.push(
        'traces',
        [SESSION, OLD, HOSTILE].map((id) => trace({ conversation_id: id, agent: 'claude-code', model: 'claude-sonnet-4-5' })),
      ),
    );
    expect200(await web.push('conversations', transcripts));
    expect200(await web.push('summaries', [summary({ conversation_id: SESSION, summary: 'Made the retries configurable' })]));
    expect200(await web.push('ledgers', [ledger({ commit: COMMIT })]));
    expect200(
      await web.push('commit-links', [
        commitLink({
          commit: COMMIT,
          subject: 'Add jittered backoff to the fetch client',
          author_name: 'Ada',
          committed_at: '2024-05-01T12:00:00.000Z',
        }),
      ]),
    );
    // The neighbouring project of the same org, and another org, each with a word of their own.
    const api = clientFor(service, tokens.neighbour, 'acme', 'api');
    expect200(await api.push('traces', [trace({ conversation_id: 'c-api', agent: 'claude-code' })]));
    expect200(
      await api.push('conversations', [
        conversation(claudeTranscript('c-api', 'zanzibar backoff', 'zanzibar', '/x.ts'), true, { conversation_id: 'c-api' }),
      ]),
    );
    const shop = clientFor(service, tokens.stranger, 'globex', 'shop');
    expect200(await shop.push('traces', [trace({ conversation_id: 'c-shop', agent: 'claude-code' })]));
    expect200(
      await shop.push('conversations', [
        conversation(claudeTranscript('c-shop', 'globexonly backoff', 'globexonly', '/y.ts'), true, { conversation_id: 'c-shop' }),
      ]),
    );
    const cookies = {} as Record<keyof typeof tokens, string>;
    for (const [name, token] of Object.entries(tokens)) cookies[name as keyof typeof tokens] = await signIn(service.url, token);
    Object.assign(context, { service, admin: web, cookies });
    // Every project indexed before the cases run: a search says how much is not yet.
    for (const [cookie, project] of [
      [cookies.read, 'acme/web'],
      [cookies.neighbour, 'acme/api'],
      [cookies.stranger, 'globex/shop'],
    ] as const)
      await until(
        async () => search(service, cookie!, 'backoff', project),
        (reply) => reply.status === 200 && (reply.json as SearchResults).pending === 0,
      );
  }
  test.after(async () => {
    await stopAllServices();
    cleanup();
  });

  test('a prompt, an assistant message, a tool call path, a summary and a commit subject are found, best first, marked', async ({
    service,
    cookies,
  }) => {
    const found = (await search(service, cookies.read, 'backoff')).json as SearchResults;
    assert.is(found.content_hidden, false);
    const kinds = found.hits.map((hit) => `${hit.kind}:${hit.conversation_id ?? hit.commit}`);
    assert.ok(kinds.includes(`transcript:${SESSION}`), kinds.join());
    assert.ok(kinds.includes(`commit:${COMMIT}`), kinds.join());
    assert.not.ok(
      kinds.some((kind) => kind.includes('c-api') || kind.includes('c-shop')),
      'only this project',
    );
    const transcript = found.hits.find((hit) => hit.kind === 'transcript')!;
    assert.equal(
      { agent: transcript.agent, model: transcript.model, url: transcript.url },
      { agent: 'claude-code', model: 'claude-sonnet-4-5', url: `/ui/p/acme/web/sessions/${SESSION}` },
    );
    assert.ok(transcript.marks.length > 0);
    for (const [start, end] of transcript.marks) assert.is(transcript.snippet.slice(start, end).toLowerCase(), 'backoff');
    const commit = found.hits.find((hit) => hit.kind === 'commit')!;
    assert.is(commit.url, `/ui/p/acme/web/commits/${COMMIT}`);
    assert.is(commit.snippet, 'Add jittered backoff to the fetch client');
    assert.equal(commit.marks, [[13, 20]]);

    // A tool call's path; a summary; a phrase; a prefix; AND, OR, NOT.
    const ids = async (q: string) =>
      ((await search(service, cookies.read, q)).json as SearchResults).hits.map(
        (hit) => `${hit.kind}:${hit.conversation_id ?? hit.commit}`,
      );
    assert.equal(await ids('retry.ts'), [`transcript:${SESSION}`]);
    assert.equal(await ids('configurable'), [`summary:${SESSION}`]);
    assert.equal(await ids('"exponential backoff"'), [`transcript:${SESSION}`]);
    assert.equal(await ids('"backoff exponential"'), []);
    assert.equal(await ids('quok*'), [`transcript:${OLD}`]);
    assert.equal((await ids('quokka OR platypus')).sort(), [`transcript:${HOSTILE}`, `transcript:${OLD}`]);
    assert.equal(await ids('jittered NOT exponential'), [`commit:${COMMIT}`]);
    assert.equal((await ids('jittered AND fetch AND client')).sort(), [`commit:${COMMIT}`, `transcript:${SESSION}`]);
    // Words that are operators to a database stay words: nothing is read as syntax.
    assert.equal(await ids('retry-logic'), [`transcript:${SESSION}`]);
    assert.equal(await ids('a.b:c OR -retry^'), [`transcript:${SESSION}`]);
  });

  test('a conversation pushed without its traces still names its agent (from its summary) and its model (from its usage)', async ({
    service,
    cookies,
    admin,
  }) => {
    // A session that edited nothing: a push without --full sends no trace of it, only its transcript and summary.
    const base = { isSidechain: false, userType: 'external', cwd: '/work/app', sessionId: 'c-qa', version: '2.0.14' };
    const lines = [
      {
        ...base,
        type: 'user',
        uuid: 'qa-1',
        timestamp: '2024-05-02T12:00:00.000Z',
        message: { role: 'user', content: 'what does a wombat eat' },
      },
      {
        ...base,
        type: 'assistant',
        uuid: 'qa-2',
        timestamp: '2024-05-02T12:00:02.000Z',
        message: {
          id: 'msg-qa',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5-20250929',
          content: [{ type: 'text', text: 'Grasses and roots.' }],
          usage: { input_tokens: 12, output_tokens: 5 },
        },
      },
    ];
    const bytes = Buffer.from(lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    assert.is((await admin.push('conversations', [conversation(bytes, true, { conversation_id: 'c-qa' })])).status, 200);
    const said = summary({
      conversation_id: 'c-qa',
      conversation_url: 'claude-code://session/c-qa',
      summary: 'Explained what wombats eat',
    });
    assert.is((await admin.push('summaries', [said])).status, 200);
    const reply = await until(
      async () => search(service, cookies.read, 'wombat'),
      (answer) => (answer.json as SearchResults).hits?.some((hit) => hit.conversation_id === 'c-qa' && hit.model !== null) ?? false,
    );
    const hit = (reply.json as SearchResults).hits.find((one) => one.conversation_id === 'c-qa')!;
    assert.equal({ agent: hit.agent, model: hit.model }, { agent: 'claude-code', model: 'claude-sonnet-4-5-20250929' });
  });

  test('hostile queries are 400 invalid_query with a sentence, never a 500', async ({ service, cookies }) => {
    for (const q of [
      '',
      '   ',
      '"unclosed phrase',
      'retry AND',
      'OR retry',
      '(retry',
      'retry)',
      'NOT retry',
      'AND OR NOT',
      'x'.repeat(10 * 1024),
      'retry \u0000 backoff',
      Array.from({ length: 40 }, (_, index) => `w${index}`).join(' '),
    ]) {
      const reply = await search(service, cookies.read, q);
      assert.is(reply.status, 400, `${JSON.stringify(q.slice(0, 40))}: ${reply.text.slice(0, 200)}`);
      const body = reply.json as { code: string; message: string };
      assert.is(body.code, 'invalid_query');
      assert.match(body.message, /^[A-Z"].*\.$/);
    }
    // A limit outside 1-100 is refused with a sentence, not clamped.
    for (const limit of ['0', '101', 'abc', '-1']) {
      const reply = await get(service, cookies.read, `/ui/api/p/acme/web/search?q=retry&limit=${limit}`);
      assert.is(reply.status, 400, `limit=${limit}`);
      assert.match((reply.json as { message: string }).message, /^limit takes a number from 1 to 100/);
    }
    assert.is((await get(service, cookies.read, '/ui/api/p/acme/web/search?q=retry&limit=100')).status, 200);
    // Quotes, operators and markup that parse are searched as words: 200, never a database error.
    for (const q of ['"quotes"', '"a ""quoted"" word"', "it's", '<script>', '*', '"*"', 'NEAR(retry backoff)', 'retry:backoff', '{}[]']) {
      const reply = await search(service, cookies.read, q);
      assert.ok(reply.status === 200 || (reply.json as { code?: string }).code === 'invalid_query', `${q}: ${reply.status} ${reply.text}`);
    }
  });

  test('hostile transcripts are indexed as text: markup, NULs, marker characters and a torn line do not break the index', async ({
    service,
    cookies,
  }) => {
    const hits = ((await search(service, cookies.read, 'pwned')).json as SearchResults).hits;
    assert.equal(
      hits.map((hit) => hit.conversation_id),
      [HOSTILE],
    );
    assert.match(hits[0]!.snippet, /<script>window\.__pwned/);
    for (const control of ['\u0000', '\u0002', '\u0003']) assert.not.ok(hits[0]!.snippet.includes(control));
    assert.equal(
      ((await search(service, cookies.read, 'marker')).json as SearchResults).hits.map((hit) => hit.conversation_id),
      [HOSTILE],
    );
    // A word after 84 KB of one message is found too.
    assert.equal(
      ((await search(service, cookies.read, 'needle')).json as SearchResults).hits.map((hit) => hit.conversation_id),
      [HOSTILE],
    );
    assert.equal(
      ((await search(service, cookies.read, '"quoted" path')).json as SearchResults).hits.map((hit) => hit.conversation_id),
      [HOSTILE],
    );
  });

  test("a transcript of a million distinct words (over PostgreSQL's tsvector limit) is indexed by its first part, and the rest goes on", async ({
    service,
    cookies,
    admin,
  }) => {
    // Ten messages of 90,000 characters of distinct hex words: about 1.4 MB of lexemes, past the 1 MiB a tsvector holds.
    let n = 0;
    const word = () => (n++).toString(16).padStart(8, 'x');
    const messages = Array.from({ length: 10 }, () => Array.from({ length: 10_000 }, word).join(' '));
    const base = { isSidechain: false, userType: 'external', cwd: '/w', sessionId: 'c-huge', version: '2.0.14' };
    const lines = messages.map((text, index) =>
      JSON.stringify({
        ...base,
        type: 'user',
        uuid: `u${index}`,
        timestamp: '2024-05-01T12:00:00.000Z',
        message: { role: 'user', content: `${index === 0 ? 'wallaby ' : ''}${text}` },
      }),
    );
    const bytes = Buffer.from(`${lines.join('\n')}\n`);
    assert.is((await admin.uploadBlob(bytes)).status, 201);
    assert.is((await admin.push('traces', [trace({ conversation_id: 'c-huge', agent: 'claude-code' })])).status, 200);
    const pushed = await admin.push('conversations', [conversation(bytes, false, { conversation_id: 'c-huge' })]);
    assert.is(pushed.status, 200, pushed.text);
    const found = await until(
      async () => search(service, cookies.read, 'wallaby'),
      (reply) => (reply.json as SearchResults).pending === 0,
    );
    assert.equal(
      (found.json as SearchResults).hits.map((hit) => hit.conversation_id),
      ['c-huge'],
    );
    // Other documents are still indexed and found.
    assert.ok(((await search(service, cookies.read, 'quokka')).json as SearchResults).hits.length > 0);
  });

  test('a token never finds another project, of its org or another; a push token finds commit subjects only', async ({
    service,
    cookies,
  }) => {
    assert.equal(
      ((await search(service, cookies.neighbour, 'backoff', 'acme/api')).json as SearchResults).hits.map((hit) => hit.conversation_id),
      ['c-api'],
    );
    assert.is(((await search(service, cookies.read, 'zanzibar')).json as SearchResults).hits.length, 0);
    assert.is(((await search(service, cookies.read, 'globexonly')).json as SearchResults).hits.length, 0);
    for (const [cookie, project] of [
      [cookies.read, 'acme/api'],
      [cookies.read, 'globex/shop'],
      [cookies.neighbour, 'acme/web'],
      [cookies.stranger, 'acme/web'],
    ] as const) {
      const reply = await search(service, cookie, 'backoff', project);
      assert.is(reply.status, 404, project);
      assert.is((reply.json as { code: string }).code, 'unknown_project');
    }
    const unsigned = await fetch(`${service.url}/ui/api/p/acme/web/search?q=backoff`);
    assert.is(unsigned.status, 401);

    const pushed = (await search(service, cookies.push, 'backoff')).json as SearchResults;
    assert.is(pushed.content_hidden, true);
    assert.equal(
      pushed.hits.map((hit) => hit.kind),
      ['commit'],
    );
    assert.is(((await search(service, cookies.push, 'configurable')).json as SearchResults).hits.length, 0, 'no summary for push');
  });

  test('commit links name their commit in the list and on the commit page; older links without a subject stay valid', async ({
    service,
    cookies,
    admin,
  }) => {
    const list = (await get(service, cookies.read, '/ui/api/p/acme/web/commits')).json as {
      items: Array<{ sha: string; subject: string | null; author: string | null }>;
    };
    const row = list.items.find((item) => item.sha === COMMIT)!;
    assert.equal({ subject: row.subject, author: row.author }, { subject: 'Add jittered backoff to the fetch client', author: 'Ada' });
    const page = (await get(service, cookies.read, `/ui/api/p/acme/web/commits/${COMMIT}`)).json as { subject: string | null };
    assert.is(page.subject, 'Add jittered backoff to the fetch client');
    const filtered = (await get(service, cookies.read, '/ui/api/p/acme/web/commits?q=jittered')).json as { total: number };
    assert.is(filtered.total, 1, 'the list filter reads the subject too');

    const bare = 'd'.repeat(40);
    assert.is((await admin.push('ledgers', [ledger({ commit: bare })])).status, 200);
    assert.is((await admin.push('commit-links', [commitLink({ commit: bare })])).status, 200, 'a link without a subject is accepted');
    const again = (await get(service, cookies.read, '/ui/api/p/acme/web/commits')).json as {
      items: Array<{ sha: string; subject: string | null }>;
    };
    assert.is(again.items.find((item) => item.sha === bare)?.subject, null);
  });

  test('redaction holds: a commit subject that still holds a secret is refused like a summary, and never indexed', async ({
    service,
    cookies,
    admin,
  }) => {
    const secret = `ghp_${'Q1w2E3r4T5'.repeat(3)}y6U7i8`;
    const refused = await admin.push('commit-links', [commitLink({ commit: 'e'.repeat(40), subject: `Rotate ${secret}` })]);
    assert.is(refused.status, 422, refused.text);
    assert.is(refused.json.code, 'secret_detected');
    assert.equal(
      refused.json.errors.map((error: { field: string }) => error.field),
      ['subject'],
    );
    assert.is(((await search(service, cookies.read, 'Rotate')).json as SearchResults).hits.length, 0);
  });

  test('forget and retention take the text out of the search index at once', async ({ service, cookies, admin }) => {
    assert.is(((await search(service, cookies.read, 'exponential')).json as SearchResults).hits.length, 1);
    const forgot = await admin.post('/api/v1/forget', JSON.stringify({ conversation_ids: [SESSION] }), 'application/json');
    assert.is(forgot.status, 200, forgot.text);
    for (const q of ['exponential', 'configurable', 'retry.ts'])
      assert.equal(((await search(service, cookies.read, q)).json as SearchResults).hits, [], q);
    // The commit's subject is not the conversation's: it stays.
    assert.equal(
      ((await search(service, cookies.read, 'jittered')).json as SearchResults).hits.map((hit) => hit.kind),
      ['commit'],
    );

    assert.is(((await search(service, cookies.read, 'quokka')).json as SearchResults).hits.length, 1);
    const set = await fetch(`${service.url}/api/v1/retention`, {
      method: 'PUT',
      headers: { ...admin.headers(), 'content-type': 'application/json' },
      body: JSON.stringify({ retain: { conversations: '1d' } }),
    });
    assert.is(set.status, 200, await set.text());
    const run = await admin.post('/api/v1/retention/run', '{}', 'application/json');
    assert.is(run.status, 200, run.text);
    assert.equal(((await search(service, cookies.read, 'quokka')).json as SearchResults).hits, []);
    // And the indexer, run again, does not bring them back.
    const settled = await until(
      async () => search(service, cookies.read, 'quokka'),
      (reply) => (reply.json as SearchResults).pending === 0,
    );
    assert.equal((settled.json as SearchResults).hits, []);
  });

  return test;
}

async function get(service: ServiceHandle, cookie: string, path: string): Promise<{ status: number; json: unknown; text: string }> {
  const response = await fetch(`${service.url}${path}`, { headers: { cookie } });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json, text };
}

function search(service: ServiceHandle, cookie: string, q: string, project = 'acme/web') {
  return get(service, cookie, `/ui/api/p/${project}/search?${new URLSearchParams({ q })}`);
}

searchSuite('sqlite').run();
await onPostgres('team view search on PostgreSQL', () => searchSuite('postgres').run());
